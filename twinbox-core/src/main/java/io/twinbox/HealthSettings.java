package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The thresholds of {@link Health}, declared once: its constructor validates with them and the
 * starter's {@code twinbox.health.*}, the CLI's {@code health.*} and the README derive from
 * {@link #CATALOGUE}. Immutable.
 */
public final class HealthSettings {
  /** 5 minutes: the same threshold as the shipped alert {@code TwinboxOutboxStale}. */
  public static final Setting<Duration> MAX_OLDEST_PENDING_AGE = Setting.duration("maxOldestPendingAge").positive()
      .defaultValue(Duration.ofMinutes(5)).description("DOWN once the oldest pending event is older than this.");

  /** Health has no builder: the threshold is a constructor argument. */
  public static final Catalogue<Void> CATALOGUE = Catalogue.<Void>builder("health", "Health")
      .add(MAX_OLDEST_PENDING_AGE)
      .build();

  private HealthSettings() {}
}
