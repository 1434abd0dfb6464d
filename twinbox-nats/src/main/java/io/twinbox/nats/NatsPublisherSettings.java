package io.twinbox.nats;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import java.time.Duration;

/**
 * The connection and publisher settings of NATS JetStream, declared once: the starter's {@code
 * twinbox.nats.*}, the CLI's {@code nats.*} and the README derive from {@link #CATALOGUE}, and
 * {@link #builder} turns given values into a publisher builder for both. {@link
 * NatsPublisher.Builder} validates with the same settings. Immutable.
 */
public final class NatsPublisherSettings {
  public static final Setting<String> URL = Setting.string("url").length(10_000).defaultText("(required)")
      .description("nats://host:4222, credentials as user info if any (the user info is never shown).");
  public static final Setting<String> SUBJECT_PREFIX = Setting.string("subjectPrefix").length(255)
      .valid(NatsPublisherSettings::legalPrefix, "a subject without wildcards or empty tokens").defaultValue("twinbox")
      .description("First token of the default subjects: <prefix>.<aggregate type>.<event type>.");
  public static final Setting<String> DEAD_LETTER_PREFIX = Setting.string("deadLetterPrefix").length(255)
      .valid(NatsPublisherSettings::legalPrefix, "a subject without wildcards or empty tokens").defaultValue("dlq")
      .description("Dead letters (relay deadLetters=true) go to <prefix>.<the event's subject>.");
  public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.duration("publishTimeout")
      .range(Duration.ofMillis(100), Duration.ofMinutes(5)).defaultValue(Duration.ofSeconds(10))
      .description("Longest wait for a JetStream publish ack before the send counts as an outage.");
  public static final Setting<String> CONNECTION_NAME = Setting.string("connectionName").length(255)
      .defaultValue("twinbox-relay").description("The connection name the server shows.");

  /** The url is the builder's argument ({@link #builder}); the subject prefix picks the default router. */
  public static final Catalogue<NatsPublisher.Builder> CATALOGUE =
      Catalogue.<NatsPublisher.Builder>builder("nats", "NatsPublisher.Builder")
          .add(URL)
          .add(SUBJECT_PREFIX, (b, v) -> b.subjectRouter(SubjectRouter.byAggregateType(v)))
          .add(DEAD_LETTER_PREFIX, NatsPublisher.Builder::deadLetterPrefix)
          .add(PUBLISH_TIMEOUT, NatsPublisher.Builder::publishTimeout)
          .add(CONNECTION_NAME, NatsPublisher.Builder::connectionName)
          .build();

  private NatsPublisherSettings() {}

  /**
   * A publisher builder from checked values ({@link Catalogue#values}); a router may still be set on it.
   *
   * @throws IllegalArgumentException when no url is given
   */
  public static NatsPublisher.Builder builder(SettingValues values) {
    return CATALOGUE.apply(NatsPublisher.builder(values.get(URL)), values);
  }

  /** Legal exactly when the default router accepts it: one rule for every surface. */
  private static boolean legalPrefix(String prefix) {
    try {
      SubjectRouter.byAggregateType(prefix);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
