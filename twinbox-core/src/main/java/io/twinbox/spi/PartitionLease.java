package io.twinbox.spi;

/**
 * A relay's right to publish one partition of the outbox. The {@code epoch} grows on every
 * take-over; it is the fencing token that every state change after a publish must present.
 */
public record PartitionLease(int partition, long epoch) {}
