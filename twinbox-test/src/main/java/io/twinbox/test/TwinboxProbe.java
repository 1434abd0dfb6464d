package io.twinbox.test;

import io.twinbox.OutboxStatus;
import io.twinbox.Relay;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Watches what an application publishes, for its tests. Give the relay under test
 * {@link #transport()} (it acknowledges, or wraps your real transport), or let {@link #drain()}
 * run a relay; then await or assert on the published events:
 *
 * <pre>{@code
 * TwinboxProbe probe = TwinboxProbe.of(JdbcStore.builder(dataSource).build());  // or InMemoryStore.create()
 * orders.place("42");                                     // the code under test writes OrderCreated
 * probe.drain();                                          // publishes everything committed so far
 * OutboxMessage m = probe.assertPublished(EventMatcher.type("OrderCreated").aggregate("Order", "42"));
 * }</pre>
 *
 * <p>A failed await or assert throws {@link AssertionError} naming the expected event and listing
 * what was published. Thread-safe.
 */
public final class TwinboxProbe {
  /** How long {@link #awaitPublished(EventMatcher)} and {@link #awaitApplied} wait by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final OutboxStore store;
  private final RecordingTransport transport;
  private volatile int mark;

  private TwinboxProbe(OutboxStore store, RecordingTransport transport) {
    this.store = Objects.requireNonNull(store, "store cannot be null");
    this.transport = transport;
  }

  /** A probe on {@code store} whose transport acknowledges every message itself. */
  public static TwinboxProbe of(OutboxStore store) {
    return new TwinboxProbe(store, RecordingTransport.acking());
  }

  /** A probe on {@code store} whose transport records and passes every message to {@code delegate}. */
  public static TwinboxProbe of(OutboxStore store, Transport delegate) {
    return new TwinboxProbe(store, RecordingTransport.wrapping(Objects.requireNonNull(delegate, "delegate")));
  }

  /** The transport to give the relay under test: what it acknowledges is what the probe sees. */
  public RecordingTransport transport() {
    return transport;
  }

  /** The store the probe drains. */
  public OutboxStore store() {
    return store;
  }

  /** Everything published since the probe was made or last {@link #reset()}, in acknowledgement order. */
  public List<OutboxMessage> published() {
    List<OutboxMessage> all = transport.acked();
    return List.copyOf(all.subList(Math.min(mark, all.size()), all.size()));
  }

  /** The published events {@code matcher} means. */
  public List<OutboxMessage> published(EventMatcher matcher) {
    return published().stream().filter(matcher::matches).toList();
  }

  /** Forgets what was published so far (the JUnit extension calls it before each test). */
  public void reset() {
    mark = transport.acked().size();
  }

  /**
   * Publishes every event committed so far, then returns: runs a relay on {@link #transport()}
   * until the store reports nothing pending (no row due or backing off), then closes it. Do not
   * run it while another relay works on the same store. Returns what this drain published.
   *
   * @throws AssertionError when events are still pending after {@code timeout}
   * @throws IllegalStateException when the store cannot report its status (not an {@link OutboxAdminStore})
   */
  public List<OutboxMessage> drain(Duration timeout) {
    OutboxAdminStore admin = admin("drain");
    int before = transport.acked().size();
    try (Relay relay = Relay.builder(store, transport).pollInterval(Duration.ofMillis(20)).build()) {
      relay.start();
      awaitNothingPending(admin, "drain", timeout);
    }
    List<OutboxMessage> all = transport.acked();
    return List.copyOf(all.subList(before, all.size()));
  }

  /** {@link #drain(Duration)} within {@link #DEFAULT_TIMEOUT}. */
  public List<OutboxMessage> drain() {
    return drain(DEFAULT_TIMEOUT);
  }

  /**
   * Waits until the store reports nothing pending (no row due or backing off): the relay under test
   * — one running on {@link #transport()}, e.g. the Spring Boot starter's — has published everything
   * committed so far. After it, {@link #assertNotPublished} means "was not committed", not "not yet".
   * Returns what was published since the probe was made or last {@link #reset()}.
   *
   * @throws AssertionError when events are still pending after {@code timeout}
   * @throws IllegalStateException when the store cannot report its status (not an {@link OutboxAdminStore})
   */
  public List<OutboxMessage> awaitNothingPending(Duration timeout) {
    awaitNothingPending(admin("awaitNothingPending"), "awaitNothingPending", timeout);
    return published();
  }

  /** {@link #awaitNothingPending(Duration)} within {@link #DEFAULT_TIMEOUT}. */
  public List<OutboxMessage> awaitNothingPending() {
    return awaitNothingPending(DEFAULT_TIMEOUT);
  }

  private OutboxAdminStore admin(String operation) {
    if (!(store instanceof OutboxAdminStore admin)) {
      throw new IllegalStateException(operation + " needs a store that reports its status (OutboxAdminStore), was "
          + store.getClass().getName());
    }
    return admin;
  }

  private static void awaitNothingPending(OutboxAdminStore admin, String operation, Duration timeout) {
    if (!poll(() -> admin.status().pending() == 0, timeout)) {
      OutboxStatus status = admin.status();
      throw new AssertionError(operation + ": " + status.pending() + " events still pending after " + timeout
          + " (retrying " + status.retrying() + ")");
    }
  }

  /**
   * Waits until an event {@code matcher} means has been published, and returns the first one.
   *
   * @throws AssertionError naming the expected event and listing what was published, on timeout
   */
  public OutboxMessage awaitPublished(EventMatcher matcher, Duration timeout) {
    if (!poll(() -> !published(matcher).isEmpty(), timeout)) {
      throw new AssertionError("expected an event published: " + matcher + "; none within " + timeout
          + ". " + describePublished());
    }
    return published(matcher).get(0);
  }

  /** {@link #awaitPublished(EventMatcher, Duration)} within {@link #DEFAULT_TIMEOUT}. */
  public OutboxMessage awaitPublished(EventMatcher matcher) {
    return awaitPublished(matcher, DEFAULT_TIMEOUT);
  }

  /** The one published event {@code matcher} means, now (after a {@link #drain()}), else an AssertionError. */
  public OutboxMessage assertPublished(EventMatcher matcher) {
    List<OutboxMessage> found = published(matcher);
    if (found.isEmpty()) {
      throw new AssertionError("expected an event published: " + matcher + ". " + describePublished());
    }
    return found.get(0);
  }

  /** Fails when an event {@code matcher} means was published. */
  public void assertNotPublished(EventMatcher matcher) {
    List<OutboxMessage> found = published(matcher);
    if (!found.isEmpty()) {
      throw new AssertionError("expected no event published: " + matcher + ", but " + found.size() + " were: "
          + found.stream().map(TwinboxProbe::describe).collect(Collectors.joining("; ")));
    }
  }

  /**
   * Waits until inbox consumer {@code consumer} has applied (committed) message {@code messageId},
   * looking into {@code inbox} on connections of {@code dataSource} — the JDBC inbox on the
   * application's database, or an {@link io.twinbox.testing.InMemoryStore} and its own data source.
   *
   * @throws AssertionError naming consumer and message id on timeout
   */
  public static void awaitApplied(InboxStore inbox, DataSource dataSource, String consumer, String messageId,
      Duration timeout) {
    Objects.requireNonNull(messageId, "messageId cannot be null");
    if (!poll(() -> applied(inbox, dataSource, consumer, messageId), timeout)) {
      throw new AssertionError("expected message " + messageId + " applied by inbox consumer '" + consumer
          + "'; not within " + timeout);
    }
  }

  /** {@link #awaitApplied(InboxStore, DataSource, String, String, Duration)} within {@link #DEFAULT_TIMEOUT}. */
  public static void awaitApplied(InboxStore inbox, DataSource dataSource, String consumer, String messageId) {
    awaitApplied(inbox, dataSource, consumer, messageId, DEFAULT_TIMEOUT);
  }

  private static boolean applied(InboxStore inbox, DataSource dataSource, String consumer, String messageId) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        return inbox.storedHashes(c, consumer, List.of(messageId)).containsKey(messageId);
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the inbox of '" + consumer + "'", e);
    }
  }

  private String describePublished() {
    List<OutboxMessage> all = published();
    return all.isEmpty() ? "Nothing was published." : "Published (" + all.size() + "): "
        + all.stream().limit(20).map(TwinboxProbe::describe).collect(Collectors.joining("; "))
        + (all.size() > 20 ? "; …" : "");
  }

  // Type and aggregate only: payloads may hold personal data and stay out of failure messages.
  private static String describe(OutboxMessage m) {
    return "type=" + m.type() + Optional.ofNullable(m.aggregateId())
        .map(id -> ", aggregate=" + m.aggregateType() + "/" + id).orElse("");
  }

  // A deadline loop, not a fixed sleep: returns as soon as the condition holds.
  private static boolean poll(BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return condition.getAsBoolean();
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting", e);
      }
    }
    return true;
  }
}
