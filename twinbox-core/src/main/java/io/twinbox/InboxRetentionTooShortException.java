package io.twinbox;

import java.time.Duration;

/**
 * An inbox retention shorter than the redelivery horizon, refused when the retention job is
 * built: a message the broker redelivers after its inbox record was purged would be processed a
 * second time. Names the setting and the minimum.
 */
public final class InboxRetentionTooShortException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String setting;
  private final Duration minimum;

  public InboxRetentionTooShortException(String setting, Duration given, String horizonSetting, Duration minimum) {
    super(message(setting, given, horizonSetting, minimum));
    this.setting = setting;
    this.minimum = minimum;
  }

  /** The wording every surface uses (the builder, the catalogue's rule, the CLI's purge). */
  public static String message(String setting, Duration given, String horizonSetting, Duration minimum) {
    return setting + " (" + RetentionSettings.INBOX_AGE.format(given) + ") must be at least " + horizonSetting
        + " (" + RetentionSettings.REDELIVERY_HORIZON.format(minimum) + "), the longest time the broker may redeliver a message: a message redelivered after its inbox record was"
        + " purged would be processed twice";
  }

  /** The setting that was too short, as the surface names it. */
  public String setting() {
    return setting;
  }

  /** The shortest inbox retention allowed: the redelivery horizon. */
  public Duration minimum() {
    return minimum;
  }
}
