package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The settings every inbox consumer shares, declared once: the batch size, the retry policy of
 * failing handlers and the replay poll interval. Each broker's consumer builder declares its catalogue from {@link #common}
 * plus its own settings (poll timeout, prefetch, ack wait …); the starter's {@code
 * twinbox.<broker>.consumer.*} and the README derive from those catalogues. Immutable.
 */
public final class InboxConsumerSettings {
  public static final Setting<Integer> BATCH_SIZE = Setting.integer("batchSize").range(1, 1000).defaultValue(50)
      .description("Messages per database transaction.");
  public static final Setting<Duration> REPLAY_INTERVAL = Setting.duration("replayInterval")
      .range(Duration.ofMillis(100), Duration.ofHours(1)).defaultValue(Duration.ofSeconds(1))
      .description("How often, at most, the consumer looks for operators' replay requests of its parked messages.");
  /** Failing handlers: 5 attempts, 200 ms doubling to 5 s, full jitter; then the message is parked. */
  public static final RetryPolicy DEFAULT_RETRY = RetryPolicy.builder().maxAttempts(5)
      .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build();

  private InboxConsumerSettings() {}

  /**
   * A consumer catalogue under {@code prefix} (e.g. {@code kafka.consumer}) that starts with the
   * shared settings, applied through the builder's {@code batchSize} and {@code retryPolicy}
   * methods; the caller adds its own settings and builds it.
   */
  public static <B extends InboxConsumer.Builder<B>> Catalogue.Builder<B> common(String prefix, String title,
      java.util.function.BiConsumer<B, Integer> batchSize, java.util.function.BiConsumer<B, RetryPolicy> retryPolicy) {
    return Catalogue.<B>builder(prefix, title)
        .add(BATCH_SIZE, batchSize)
        .group("retry", RetryPolicy.settings(DEFAULT_RETRY), DEFAULT_RETRY::toBuilder, RetryPolicy.Builder::build,
            retryPolicy)
        .add(REPLAY_INTERVAL, InboxConsumer.Builder::replayInterval);
  }
}
