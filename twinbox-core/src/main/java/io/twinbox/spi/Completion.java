package io.twinbox.spi;

/**
 * The result of {@link OutboxStore#complete}: how many rows were marked (published or failed) and
 * how many were not because the relay no longer held their partition's lease (fenced).
 */
public record Completion(int completed, int failed, int fenced) {}
