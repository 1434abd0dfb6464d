package io.twinbox;

import io.twinbox.internal.RelayEngine;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
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
 */
public interface Relay extends AutoCloseable {

  /** Starts the lease keeper and the workers. Returns at once; call once. */
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
      CompletionMode completionMode) {}

  /** Configures a {@link Relay}. Not thread-safe; every setting has a default. */
  final class Builder {
    private final OutboxStore store;
    private final Transport transport;
    private String nodeId;
    private String source = "/twinbox";
    private int batchSize = 500;
    private int workers = 2;
    private Duration pollInterval = Duration.ofMillis(100);
    private Duration leaseTtl = Duration.ofSeconds(10);
    private Duration publishTimeout = Duration.ofSeconds(30);
    private Duration outageBackoffMax = Duration.ofSeconds(10);
    private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
    private CompletionMode completionMode = CompletionMode.DELETE;
    private RelayListener listener = RelayListener.NONE;

    Builder(OutboxStore store, Transport transport) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
      this.transport = Objects.requireNonNull(transport, "transport cannot be null");
    }

    /** A name for this relay in leases and logs. Default: {@code host-pid-random}. */
    public Builder nodeId(String nodeId) {
      this.nodeId = requireText("nodeId", nodeId, 200);
      return this;
    }

    /** CloudEvents {@code source} of every published message. Default {@code /twinbox}. */
    public Builder source(String source) {
      this.source = requireText("source", source, 255);
      return this;
    }

    /** Rows claimed at once. Default 500; 1–10,000. */
    public Builder batchSize(int batchSize) {
      this.batchSize = range("batchSize", batchSize, 1, 10_000);
      return this;
    }

    /** Worker threads; each owns a share of the held partitions. Default 2; 1–64. */
    public Builder workers(int workers) {
      this.workers = range("workers", workers, 1, 64);
      return this;
    }

    /**
     * Longest wait between two claims when idle. Polling is adaptive: a full batch claims again at
     * once, a partial one waits 10 ms, and every empty claim doubles the wait up to this interval.
     * A commit notification (PostgreSQL LISTEN/NOTIFY, opt-in: see {@code
     * JdbcStore.setCommitNotifications}) ends any wait at once. Default 100 ms: an idle relay then
     * runs about ten cheap index probes a second per worker.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = positive("pollInterval", pollInterval);
      return this;
    }

    /**
     * How long a partition lease lasts without renewal; a crashed relay's partitions are taken
     * over after at most this long. Renewed every third of it. Default 10 s, at least 1 s.
     */
    public Builder leaseTtl(Duration leaseTtl) {
      positive("leaseTtl", leaseTtl);
      if (leaseTtl.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("leaseTtl must be >= 1s, was " + leaseTtl);
      }
      this.leaseTtl = leaseTtl;
      return this;
    }

    /**
     * Longest wait for the broker's acknowledgements of one wave; unanswered sends count as an
     * outage (no attempt used) and are republished. Default 30 s.
     */
    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = positive("publishTimeout", publishTimeout);
      return this;
    }

    /** Cap of the pause after a broker outage (it starts at 100 ms and doubles). Default 10 s. */
    public Builder outageBackoffMax(Duration max) {
      this.outageBackoffMax = positive("outageBackoffMax", max);
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy cannot be null");
      return this;
    }

    /** What happens to a row once published. Default {@link CompletionMode#DELETE}. */
    public Builder completionMode(CompletionMode mode) {
      this.completionMode = Objects.requireNonNull(mode, "completionMode cannot be null");
      return this;
    }

    public Builder listener(RelayListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    public Relay build() {
      String id = nodeId != null ? nodeId : defaultNodeId();
      RelayConfig config = new RelayConfig(id, source, batchSize, workers, pollInterval, leaseTtl,
          publishTimeout, outageBackoffMax, retryPolicy, completionMode);
      return new RelayEngine(store, transport, config, listener);
    }

    private static String defaultNodeId() {
      String runtime = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
      return runtime + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String requireText(String name, String value, int max) {
      if (value == null || value.isBlank() || value.length() > max) {
        throw new IllegalArgumentException(name + " must be 1–" + max + " non-blank characters");
      }
      return value;
    }

    private static int range(String name, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(name + " must be within [" + min + ", " + max + "], was " + value);
      }
      return value;
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name + " cannot be null");
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
      return d;
    }
  }
}
