package io.twinbox.example;

import io.twinbox.RetryPolicy;
import java.time.Duration;

/**
 * How each service consumes its topic.
 *
 * @param instances Kafka consumers (one thread each) in the service's group; they share its
 *     partitions, each partition is still read in order by one of them
 * @param batchSize messages per database transaction (the inbox records a batch in one statement)
 * @param retry attempts and backoff for a failing handler before its message is parked
 */
public record ConsumerSettings(int instances, int batchSize, RetryPolicy retry) {
  /** Default consumer instances per service. */
  public static final int DEFAULT_INSTANCES = 1;
  /** Default messages per transaction: the library's default. */
  public static final int DEFAULT_BATCH = 50;
  /** Default retries: 5 attempts, 200 ms to 2 s with full jitter, then parked. */
  public static final RetryPolicy DEFAULT_RETRY = RetryPolicy.builder().maxAttempts(5)
      .backoff(Duration.ofMillis(200), Duration.ofSeconds(2)).build();

  public ConsumerSettings {
    if (instances < 1 || batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("instances must be >= 1 and batchSize within [1, 1000]");
    }
  }

  /** {@value #DEFAULT_INSTANCES} instance, {@value #DEFAULT_BATCH} per transaction, {@link #DEFAULT_RETRY}. */
  public static ConsumerSettings defaults() {
    return new ConsumerSettings(DEFAULT_INSTANCES, DEFAULT_BATCH, DEFAULT_RETRY);
  }

  /** The same with another retry policy. */
  public ConsumerSettings withRetry(RetryPolicy policy) {
    return new ConsumerSettings(instances, batchSize, policy);
  }
}
