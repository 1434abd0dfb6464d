package io.twinbox;

import io.twinbox.internal.RelayEngine;
import io.twinbox.internal.WalRelayEngine;
import io.twinbox.spi.ChangeFeedStore;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Publishes committed outbox events to a broker: claims due work by partition lease, publishes
 * outside any database transaction, then completes the rows fenced by the lease.
 *
 * <pre>{@code
 * try (KafkaPublisher kafka = KafkaPublisher.builder(bootstrap).build();
 *     Relay relay = Relay.builder(store, kafka).build()) {
 *   relay.start();
 *   ...
 * }                          // the relay stops first, then the publisher closes
 * }</pre>
 *
 * <p>Any number of relays may run on one outbox; partitions are shared among live relays, and a
 * dead relay's partitions are taken over when its lease expires. {@link #close()} is graceful:
 * in-flight batches finish and leases are released for an immediate hand-off. Thread-safe.
 *
 * <p>With {@link Builder#mode(RelayMode) mode(RelayMode.WAL)} the relay streams new events from
 * PostgreSQL's write-ahead log instead of polling: one relay streams (it holds every partition), the
 * others stand by and take over within the lease TTL; completion, retries, FAILED and the
 * per-aggregate hold are the same. See {@link RelayMode}.
 */
public interface Relay extends AutoCloseable {

  /**
   * Registers this relay under its node id, then starts the lease keeper and the workers; call
   * once. Returns at once, except when the node id's row carries a fresh heartbeat of another run:
   * then it waits until that heartbeat either lapses — the run crashed; this one takes over, at most
   * about one {@code leaseTtl} later — or moves on, which means a live relay uses the node id.
   *
   * @throws NodeIdInUseException when a live relay runs under the same node id
   * @throws SchemaNotMigratedException when the schema is missing or outdated
   */
  void start();

  /**
   * Stops gracefully: finishes in-flight work, releases leases, leaves. Idempotent. The transport
   * is not closed: it belongs to the caller (it may serve several relays); close it after the
   * relay.
   */
  @Override
  void close();

  /** This relay's node id, unique per process start. */
  String nodeId();

  /** The partitions held right now. */
  Set<Integer> partitions();

  RelayStats stats();

  RelayConfig config();

  /**
   * Why this relay stopped doing its work until an operator acts, or empty while it works. A WAL
   * relay whose replication slot was lost (invalidated by the server or dropped) stops streaming
   * for good, releases its leases and reports {@link ChangeFeedException.Problem#SLOT_LOST} here;
   * {@link Health#watching} turns DOWN with it. The polling relay has none.
   */
  default Optional<TwinboxException> fault() {
    return Optional.empty();
  }

  /** A WAL relay's own counters (stream and sweep, confirmations, sessions); empty for the polling relay. */
  default Optional<WalStats> walStats() {
    return Optional.empty();
  }

  static Builder builder(OutboxStore store, Transport transport) {
    return new Builder(store, transport);
  }

  /** The effective, immutable settings of a {@link Relay}. */
  record RelayConfig(
      String nodeId,
      String source,
      int batchSize,
      int workers,
      Duration pollInterval,
      Duration leaseTtl,
      Duration publishTimeout,
      Duration outageBackoffMax,
      RetryPolicy retryPolicy,
      CompletionMode completionMode,
      boolean deadLetters) {}

  /**
   * Configures a {@link Relay}. Not thread-safe; every setting has a default. The defaults and
   * limits are those of {@link RelaySettings} (and {@link RetryPolicy#ofDefaults()}); a value out of
   * range fails naming the setting and the limit, e.g. {@code batchSize must be within [1, 10000],
   * was 0}.
   */
  final class Builder {
    private final OutboxStore store;
    private final Transport transport;
    private String nodeId;
    private String source = RelaySettings.SOURCE.defaultValue();
    private int batchSize = RelaySettings.BATCH_SIZE.defaultValue();
    private int workers = RelaySettings.WORKERS.defaultValue();
    private Duration pollInterval = RelaySettings.POLL_INTERVAL.defaultValue();
    private Duration leaseTtl = RelaySettings.LEASE_TTL.defaultValue();
    private Duration publishTimeout = RelaySettings.PUBLISH_TIMEOUT.defaultValue();
    private Duration outageBackoffMax = RelaySettings.OUTAGE_BACKOFF_MAX.defaultValue();
    private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
    private CompletionMode completionMode = RelaySettings.COMPLETION_MODE.defaultValue();
    private RelayListener listener = RelayListener.NONE;
    private RelayMode mode = RelaySettings.MODE.defaultValue();
    private String walSlot;
    private Duration walSweepInterval = RelaySettings.WAL_SWEEP_INTERVAL.defaultValue();
    private boolean deadLetters = RelaySettings.DEAD_LETTERS.defaultValue();
    private DeadLetterTransport deadLetterTransport;

    Builder(OutboxStore store, Transport transport) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
      this.transport = Objects.requireNonNull(transport, "transport cannot be null");
    }

    /**
     * A name for this relay in leases and logs; unique among the relays of one outbox. A relay
     * started under the node id of another live relay is refused ({@link NodeIdInUseException});
     * a restart after a crash is not (see {@link Relay#start()}). Default: {@code pid@host-random},
     * unique per start ({@link RelaySettings#NODE_ID}).
     */
    public Builder nodeId(String nodeId) {
      this.nodeId = RelaySettings.NODE_ID.check(nodeId);
      return this;
    }

    /** CloudEvents {@code source} of every published message ({@link RelaySettings#SOURCE}). */
    public Builder source(String source) {
      this.source = RelaySettings.SOURCE.check(source);
      return this;
    }

    /** Rows claimed at once ({@link RelaySettings#BATCH_SIZE}). */
    public Builder batchSize(int batchSize) {
      this.batchSize = RelaySettings.BATCH_SIZE.check(batchSize);
      return this;
    }

    /** Worker threads; each owns a share of the held partitions ({@link RelaySettings#WORKERS}). */
    public Builder workers(int workers) {
      this.workers = RelaySettings.WORKERS.check(workers);
      return this;
    }

    /**
     * Longest wait between two claims when idle ({@link RelaySettings#POLL_INTERVAL}). Polling is
     * adaptive: a full batch claims again at once, a partial one waits 10 ms, and every empty claim
     * doubles the wait up to this interval. A commit notification (PostgreSQL LISTEN/NOTIFY,
     * opt-in: see {@code JdbcStore.setCommitNotifications}) ends any wait at once. At the default
     * an idle relay runs about ten cheap index probes a second per worker.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = RelaySettings.POLL_INTERVAL.check(pollInterval);
      return this;
    }

    /**
     * How long a partition lease lasts without renewal; a crashed relay's partitions are taken
     * over after at most this long. Renewed every third of it ({@link RelaySettings#LEASE_TTL}).
     */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = RelaySettings.LEASE_TTL.check(leaseTtl);
      return this;
    }

    /**
     * Longest wait for the broker's acknowledgements of one wave ({@link
     * RelaySettings#PUBLISH_TIMEOUT}); unanswered sends count as an outage (no attempt used) and
     * are republished. The wait for a message never outlasts its partition's lease either
     * (renewals move that end on): once the lease can no longer be trusted, a successor may claim
     * the aggregate, so the unanswered message is treated the same way. It may still reach the
     * broker later (the transport cannot recall it): a duplicate, never a reordering, since nothing
     * more of the partition is sent.
     */
    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = RelaySettings.PUBLISH_TIMEOUT.check(publishTimeout);
      return this;
    }

    /**
     * Cap of the pause after a broker outage (it starts at 100 ms and doubles; {@link
     * RelaySettings#OUTAGE_BACKOFF_MAX}).
     */
    public Builder outageBackoffMax(Duration max) {
      this.outageBackoffMax = RelaySettings.OUTAGE_BACKOFF_MAX.check(max);
      return this;
    }

    /** Per-event retries before FAILED. Default {@link RetryPolicy#ofDefaults()}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy cannot be null");
      return this;
    }

    /** What happens to a row once published ({@link RelaySettings#COMPLETION_MODE}). */
    public Builder completionMode(CompletionMode mode) {
      this.completionMode = RelaySettings.COMPLETION_MODE.check(mode);
      return this;
    }

    public Builder listener(RelayListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    /**
     * Where the relay learns of new events ({@link RelaySettings#MODE}); {@link RelayMode#WAL}
     * streams them from PostgreSQL's write-ahead log (see {@link RelayMode}). In WAL mode one relay
     * streams and the others stand by; {@code workers} and {@code pollInterval} do not apply, every
     * other setting does.
     */
    public Builder mode(RelayMode mode) {
      this.mode = RelaySettings.MODE.check(mode);
      return this;
    }

    /**
     * WAL mode: the replication slot (and publication) name, {@code twinbox} followed by up to 56
     * lower-case letters, digits or underscores. Relays that share an outbox must use the same
     * name; slot names are unique per PostgreSQL cluster. Default: the store's, {@code
     * twinbox_<database>} ({@link RelaySettings#WAL_SLOT}: a slot name Twinbox recognises as its own).
     */
    public Builder walSlot(String slot) {
      this.walSlot = RelaySettings.WAL_SLOT.check(slot);
      return this;
    }

    /**
     * WAL mode: how often the stream sweeps the table with the polling claim — for events it left
     * there (an aggregate held by a failure, retries that came due, events released by an operator's
     * {@code retry}) ({@link RelaySettings#WAL_SWEEP_INTERVAL}).
     */
    public Builder walSweepInterval(Duration interval) {
      this.walSweepInterval = RelaySettings.WAL_SWEEP_INTERVAL.check(interval);
      return this;
    }

    /**
     * Also publishes every event that goes to FAILED (attempts exhausted or rejected) to a
     * dead-letter destination ({@link RelaySettings#DEAD_LETTERS}): the transport's own {@link
     * Transport#deadLetters()} (names derived from its routing, see the transport), unless {@link
     * #deadLetterTransport} names another. The row is FAILED and its dead letter pending in one
     * update; a dead-letter loop of the relay publishes pending ones and marks them sent (at least
     * once); a dead-letter outage never holds the main flow back. The aggregate stays held until
     * {@code retry} or {@code skip}, as without dead letters.
     */
    public Builder deadLetters(boolean enabled) {
      this.deadLetters = RelaySettings.DEAD_LETTERS.check(enabled);
      return this;
    }

    /**
     * Enables dead letters ({@link #deadLetters(boolean)}) and publishes them with {@code
     * deadLetters}, e.g. the {@link Transport#deadLetters()} of a second publisher connected to
     * another cluster or routing to other names.
     */
    public Builder deadLetterTransport(DeadLetterTransport deadLetters) {
      this.deadLetterTransport = Objects.requireNonNull(deadLetters, "deadLetterTransport cannot be null");
      this.deadLetters = true;
      return this;
    }

    /**
     * Builds the relay.
     *
     * @throws ChangeFeedException ({@code UNSUPPORTED}) in WAL mode when the store cannot stream
     *     changes (MariaDB): use the polling relay there
     * @throws IllegalArgumentException with dead letters enabled, when the transport has no dead-letter
     *     destinations and none was given, or the store keeps no dead-letter state
     */
    public Relay build() {
      String id = nodeId != null ? nodeId : defaultNodeId();
      RelayConfig config = new RelayConfig(id, source, batchSize, workers, pollInterval, leaseTtl,
          publishTimeout, outageBackoffMax, retryPolicy, completionMode, deadLetters);
      DeadLetterTransport dlq = deadLetters ? deadLetterTransport() : null;
      if (mode == RelayMode.POLLING) {
        return new RelayEngine(store, transport, config, listener, dlq);
      }
      if (!(store instanceof ChangeFeedStore feeds)) {
        throw new ChangeFeedException(ChangeFeedException.Problem.UNSUPPORTED, "RelayMode.WAL needs a store that"
            + " streams its changes (io.twinbox.spi.ChangeFeedStore); " + store.getClass().getSimpleName()
            + " does not. Use the polling relay (RelayMode.POLLING, the default).");
      }
      feeds.changeFeedUnsupported().ifPresent(why -> {
        throw new ChangeFeedException(ChangeFeedException.Problem.UNSUPPORTED, "RelayMode.WAL is not available: "
            + why + " Use the polling relay (RelayMode.POLLING, the default), which works on this store.");
      });
      String slot = walSlot != null ? walSlot : feeds.defaultFeedName();
      WalRelayEngine.WalSettings wal = new WalRelayEngine.WalSettings(slot, walSweepInterval,
          Math.max(1_000, 4 * batchSize));
      return new WalRelayEngine(store, feeds, transport, config, wal, listener, dlq);
    }

    private DeadLetterTransport deadLetterTransport() {
      if (!store.supportsDeadLetters()) {
        throw new IllegalArgumentException("deadLetters needs a store that keeps a dead-letter state; "
            + store.getClass().getSimpleName() + " does not");
      }
      if (deadLetterTransport != null) {
        return deadLetterTransport;
      }
      return transport.deadLetters().orElseThrow(() -> new IllegalArgumentException("deadLetters: transport "
          + transport.name() + " has no dead-letter destinations; give one with deadLetterTransport"));
    }

    private static String defaultNodeId() {
      String runtime = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
      return runtime + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
  }
}
