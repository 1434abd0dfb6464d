package io.twinbox.spi;

/**
 * The result of {@link OutboxStore#complete}: how many rows were marked published ({@code
 * completed}), how many failed ones were recorded ({@code failed}: retries, FAILED rows and
 * undecodable rows alike), and how many of either were not because the relay no longer held their
 * partition's lease ({@code fenced}; the new owner claims them again).
 */
public record Completion(int completed, int failed, int fenced) {}
