package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The settings of {@link Retention}, declared once: {@link Retention.Builder} validates with them
 * and the README derives from {@link #CATALOGUE}. The two ages go with their stores ({@code
 * outbox(store, age)}, {@code inbox(store, age)}), so the catalogue applies only the others.
 * Immutable.
 */
public final class RetentionSettings {
  public static final Setting<Duration> PUBLISHED_AGE = Setting.duration("publishedAge").positive()
      .defaultValue(Duration.ofDays(30)).description("PUBLISHED outbox rows (completion mode MARK) older than this"
          + " are deleted.");
  public static final Setting<Duration> SUPPLIED_ID_RETENTION = Setting.duration("suppliedIdRetention").positive()
      .defaultValue(InboxSettings.RETENTION.defaultValue())
      .description("How long a caller-chosen message id is remembered, refusing its reuse; at least the consumers'"
          + " longest inbox retention.");
  public static final Setting<Duration> INBOX_AGE = Setting.duration("inboxAge").positive()
      .defaultValue(InboxSettings.RETENTION.defaultValue())
      .description("Inbox records older than this are deleted; use the inbox's retention.");
  public static final Setting<Integer> BATCH_SIZE = Setting.integer("batchSize").range(1, 10_000).defaultValue(500)
      .description("Rows per delete statement.");
  public static final Setting<Duration> PERIOD = Setting.duration("period").positive()
      .defaultValue(Duration.ofMinutes(10)).description("Time between two rounds.");

  public static final Catalogue<Retention.Builder> CATALOGUE =
      Catalogue.<Retention.Builder>builder("retention", "Retention.Builder")
          .add(PUBLISHED_AGE)
          .add(SUPPLIED_ID_RETENTION, Retention.Builder::suppliedIdRetention)
          .add(INBOX_AGE)
          .add(BATCH_SIZE, Retention.Builder::batchSize)
          .add(PERIOD, Retention.Builder::period)
          .build();

  private RetentionSettings() {}
}
