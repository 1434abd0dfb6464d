package io.twinbox;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.time.Duration;

/**
 * The settings of a {@link Relay}: the one place their names, defaults and limits are written.
 * {@link Relay.Builder} validates with them; the starter's {@code twinbox.relay.*}, the CLI's
 * {@code relay.*} and the README's table derive from {@link #CATALOGUE}. Immutable.
 */
public final class RelaySettings {
  public static final Setting<String> NODE_ID = Setting.string("nodeId").length(200)
      .defaultText("pid@host-random")
      .description("The relay's name in the lease table; one live relay per id (a second is refused).");
  public static final Setting<String> SOURCE = Setting.string("source").length(255).defaultValue("/twinbox")
      .description("CloudEvents source of every published message.");
  public static final Setting<Integer> BATCH_SIZE = Setting.integer("batchSize").range(1, 10_000)
      .defaultValue(500).description("Rows claimed at once.");
  public static final Setting<Integer> WORKERS = Setting.integer("workers").range(1, 64).defaultValue(2)
      .description("Worker threads; worker w serves the partitions p with p % workers == w.");
  public static final Setting<Duration> POLL_INTERVAL = Setting.duration("pollInterval").positive()
      .defaultValue(Duration.ofMillis(100))
      .description("Longest idle wait between claims (commit notifications wake the relay earlier).");
  public static final Setting<Duration> LEASE_TTL = Setting.duration("leaseTtl").atLeast(Duration.ofSeconds(1))
      .defaultValue(Duration.ofSeconds(10))
      .description("Partition lease length; a dead relay's partitions move after at most this.");
  public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.duration("publishTimeout").positive()
      .defaultValue(Duration.ofSeconds(30))
      .description("Longest wait for a wave's acks, never past the lease; unanswered = outage, republished.");
  public static final Setting<Duration> OUTAGE_BACKOFF_MAX = Setting.duration("outageBackoffMax").positive()
      .defaultValue(Duration.ofSeconds(10))
      .description("Cap of the pause after a broker outage (from 100 ms, doubling).");
  public static final Setting<CompletionMode> COMPLETION_MODE =
      Setting.enumValue("completionMode", CompletionMode.class).defaultValue(CompletionMode.DELETE)
          .description("DELETE keeps the table small; MARK keeps published rows as PUBLISHED.");

  public static final Setting<RelayMode> MODE = Setting.enumValue("mode", RelayMode.class)
      .defaultValue(RelayMode.POLLING)
      .description("WAL streams new events from PostgreSQL's write-ahead log; workers and pollInterval do not apply"
          + " there.");
  public static final Setting<String> WAL_SLOT = Setting.string("walSlot")
      .valid(s -> s.matches("twinbox[a-z0-9_]{0,56}"), "twinbox followed by up to 56 of [a-z0-9_]")
      .defaultText("the store's: twinbox_<database>")
      .description("WAL mode: the replication slot's and publication's name; the same for every relay of an"
          + " outbox.");
  public static final Setting<Duration> WAL_SWEEP_INTERVAL = Setting.duration("walSweepInterval")
      .range(Duration.ofMillis(10), Duration.ofMinutes(10)).defaultValue(Duration.ofSeconds(1))
      .description("WAL mode: how often the table is swept for events the stream left there (held, retried,"
          + " released).");
  public static final Setting<Boolean> DEAD_LETTERS = Setting.bool("deadLetters").defaultValue(false)
      .description("Also publish every event that goes to FAILED to the transport's dead-letter destination"
          + " (at least once, apart from the main flow).");

  /**
   * Every relay setting and the {@link Relay.Builder} method that takes it; the retry policy's
   * settings (default {@link RetryPolicy#ofDefaults()}) under {@code retry.}.
   */
  public static final Catalogue<Relay.Builder> CATALOGUE = Catalogue.<Relay.Builder>builder("relay", "Relay.Builder")
      .add(NODE_ID, Relay.Builder::nodeId)
      .add(SOURCE, Relay.Builder::source)
      .add(BATCH_SIZE, Relay.Builder::batchSize)
      .add(WORKERS, Relay.Builder::workers)
      .add(POLL_INTERVAL, Relay.Builder::pollInterval)
      .add(LEASE_TTL, Relay.Builder::leaseTtl)
      .add(PUBLISH_TIMEOUT, Relay.Builder::publishTimeout)
      .add(OUTAGE_BACKOFF_MAX, Relay.Builder::outageBackoffMax)
      .add(COMPLETION_MODE, Relay.Builder::completionMode)
      .add(MODE, Relay.Builder::mode)
      .add(WAL_SLOT, Relay.Builder::walSlot)
      .add(WAL_SWEEP_INTERVAL, Relay.Builder::walSweepInterval)
      .add(DEAD_LETTERS, Relay.Builder::deadLetters)
      .group("retry", RetryPolicy.settings(RetryPolicy.ofDefaults()), RetryPolicy.ofDefaults()::toBuilder,
          RetryPolicy.Builder::build, Relay.Builder::retryPolicy)
      .build();

  private RelaySettings() {}
}
