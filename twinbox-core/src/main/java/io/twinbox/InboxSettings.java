package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The settings of an {@link Inbox}, declared once: {@link Inbox.Builder} validates with them and
 * the starter's {@code twinbox.inbox.*} and the README derive from {@link #CATALOGUE}. Immutable.
 */
public final class InboxSettings {
  public static final Setting<String> CONSUMER = Setting.string("consumer").length(255).defaultText("(required)")
      .description("The name the inbox records messages under (one inbox per consuming service).");
  public static final Setting<Duration> RETENTION = Setting.duration("retention").positive()
      .defaultValue(Duration.ofDays(90))
      .description("How long inbox records are kept: the window in which duplicates are recognised.");
  public static final Setting<Duration> REDELIVERY_HORIZON = Setting.duration("redeliveryHorizon").positive()
      .defaultValue(Duration.ofDays(8))
      .description("Longest time after which a message can arrive again (broker retention + producer retries);"
          + " retention may not be shorter.");
  public static final Setting<InboxOrdering> ORDERING = Setting.enumValue("ordering", InboxOrdering.class)
      .defaultValue(InboxOrdering.NONE)
      .description("Per-aggregate ordering guard: STATE skips stale state events, DELTA also holds a message until"
          + " the earlier sequences of its aggregate arrive.");
  public static final Setting<Duration> GAP_TIMEOUT = Setting.duration("gapTimeout").positive()
      .defaultValue(Duration.ofMinutes(5))
      .description("DELTA ordering: how long a message waits for a missing earlier sequence before it is parked.");

  /** A retention shorter than the horizon would forget ids while their messages can still come back. */
  private static final Catalogue.Rule RETENTION_COVERS_HORIZON = (v, name) ->
      v.get(RETENTION).compareTo(v.get(REDELIVERY_HORIZON)) >= 0 ? null
          : name.apply(RETENTION.name()) + " (" + RETENTION.format(v.get(RETENTION)) + ") must not be shorter than "
              + name.apply(REDELIVERY_HORIZON.name()) + " (" + REDELIVERY_HORIZON.format(v.get(REDELIVERY_HORIZON))
              + "): a message redelivered after its record was purged would be processed twice; raise the"
              + " retention or lower the horizon to match the broker's retention";

  /** The consumer name is the builder's constructor argument, so it has no applier here. */
  public static final Catalogue<Inbox.Builder> CATALOGUE = Catalogue.<Inbox.Builder>builder("inbox", "Inbox.Builder")
      .add(CONSUMER)
      .add(RETENTION, Inbox.Builder::retention)
      .add(REDELIVERY_HORIZON, Inbox.Builder::redeliveryHorizon)
      .add(ORDERING, Inbox.Builder::ordering)
      .add(GAP_TIMEOUT, Inbox.Builder::gapTimeout)
      .rule(RETENTION_COVERS_HORIZON)
      .build();

  private InboxSettings() {}
}
