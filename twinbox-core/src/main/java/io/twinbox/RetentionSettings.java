package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The settings of {@link Retention}, declared once: {@link Retention.Builder} validates with them,
 * the sidecar reads {@code retention.*} keys, the Spring Boot starter binds {@code
 * twinbox.retention.*}, and the README derives from {@link #CATALOGUE}. The two ages go with their
 * stores ({@code outbox(store, age)}, {@code inbox(store, age)}) and {@link #ENABLED} is for the
 * sidecar and the starter, so the catalogue applies only the others. Immutable.
 */
public final class RetentionSettings {
  public static final Setting<Boolean> ENABLED = Setting.bool("enabled").defaultValue(false)
      .description("Run retention on a schedule (the sidecar over its database, the starter over the application's);"
          + " off by default: deleting history is a decision.");
  public static final Setting<Duration> PUBLISHED_AGE = Setting.duration("publishedAge").positive()
      .defaultValue(Duration.ofDays(30)).description("PUBLISHED outbox rows (completion mode MARK) older than this"
          + " are deleted.");
  public static final Setting<Boolean> ARCHIVE = Setting.bool("archive").defaultValue(false)
      .description("Move due PUBLISHED outbox rows to twinbox_outbox_archive (every column, plus archived_at)"
          + " instead of deleting them, for audit; each batch moves entirely or not at all. Not for a"
          + " partitioned outbox (its history leaves by partition).");
  public static final Setting<Duration> SUPPLIED_ID_RETENTION = Setting.duration("suppliedIdRetention").positive()
      .defaultValue(InboxSettings.RETENTION.defaultValue())
      .description("How long a caller-chosen message id is remembered, refusing its reuse; at least the consumers'"
          + " longest inbox retention.");
  public static final Setting<Duration> INBOX_AGE = Setting.duration("inboxAge").positive()
      .defaultValue(InboxSettings.RETENTION.defaultValue())
      .description("Inbox records older than this are deleted (parked messages never); at least redeliveryHorizon.");
  public static final Setting<Duration> REDELIVERY_HORIZON = Setting.duration("redeliveryHorizon").positive()
      .defaultValue(InboxSettings.REDELIVERY_HORIZON.defaultValue())
      .description("The longest time the broker may redeliver a message (its retention + producer retries);"
          + " inboxAge may not be shorter.");
  public static final Setting<Integer> BATCH_SIZE = Setting.integer("batchSize").range(1, 10_000).defaultValue(500)
      .description("Rows per delete statement.");
  public static final Setting<Duration> PAUSE = Setting.duration("pause").range(Duration.ZERO, Duration.ofMinutes(1))
      .defaultValue(Duration.ofMillis(20))
      .description("Pause between two delete statements, letting writers and the relay in.");
  public static final Setting<Duration> PERIOD = Setting.duration("period").positive()
      .defaultValue(Duration.ofMinutes(10)).description("Time between two rounds.");

  /** An inbox record purged while its message can still come back would let it be processed twice. */
  private static final Catalogue.Rule INBOX_AGE_COVERS_HORIZON = (v, name) ->
      v.get(INBOX_AGE).compareTo(v.get(REDELIVERY_HORIZON)) >= 0 ? null
          : InboxRetentionTooShortException.message(name.apply(INBOX_AGE.name()), v.get(INBOX_AGE),
              name.apply(REDELIVERY_HORIZON.name()), v.get(REDELIVERY_HORIZON));

  public static final Catalogue<Retention.Builder> CATALOGUE =
      Catalogue.<Retention.Builder>builder("retention", "Retention.Builder")
          .add(ENABLED)
          .add(PUBLISHED_AGE)
          .add(ARCHIVE, Retention.Builder::archive)
          .add(SUPPLIED_ID_RETENTION, Retention.Builder::suppliedIdRetention)
          .add(INBOX_AGE)
          .add(REDELIVERY_HORIZON, Retention.Builder::redeliveryHorizon)
          .add(BATCH_SIZE, Retention.Builder::batchSize)
          .add(PAUSE, Retention.Builder::pause)
          .add(PERIOD, Retention.Builder::period)
          .rule(INBOX_AGE_COVERS_HORIZON)
          .build();

  private RetentionSettings() {}
}
