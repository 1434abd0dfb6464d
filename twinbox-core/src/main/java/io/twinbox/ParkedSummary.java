package io.twinbox;

import java.time.Duration;

/**
 * The parked messages of one consumer, for gauges and health checks.
 *
 * @param consumer the consumer
 * @param parked messages in {@link ParkedState#PARKED}
 * @param replaying messages in {@link ParkedState#REPLAYING}
 * @param oldestParkedAge the age of the oldest message in {@code PARKED} or {@code REPLAYING} (store
 *     clock), {@link Duration#ZERO} when there is none
 */
public record ParkedSummary(String consumer, long parked, long replaying, Duration oldestParkedAge) {}
