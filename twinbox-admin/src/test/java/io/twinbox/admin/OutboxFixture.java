package io.twinbox.admin;

import io.twinbox.CompletionMode;
import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.ListSource;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fresh PostgreSQL outbox for one test class, a writer, and a relay whose transport rejects the
 * event types in {@link #rejectedTypes} — the real way an event goes FAILED.
 */
final class OutboxFixture implements AutoCloseable {
  final PostgresDatabase db = PostgresDatabase.create();
  final JdbcStore store = JdbcStore.builder(db.dataSource()).build();
  final Outbox outbox;
  final Set<String> rejectedTypes = ConcurrentHashMap.newKeySet();
  final RecordingTransport transport = RecordingTransport.acking()
      .failWhen(m -> rejectedTypes.contains(m.type()), PublishOutcome.rejected("no such topic: rejected by the test"));

  OutboxFixture() {
    store.migrate();
    outbox = Outbox.builder(store).build();
  }

  UUID write(String type, String aggregateType, String aggregateId) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder(type, 1).aggregate(aggregateType, aggregateId)
          .payload("{\"secret\":\"payload-is-never-shown\"}").build());
      c.commit();
      return id;
    }
  }

  Relay relay() {
    return relay(CompletionMode.DELETE);
  }

  /** A started relay; {@link CompletionMode#MARK} keeps published rows as PUBLISHED, for purges. */
  Relay relay(CompletionMode mode) {
    Relay r = Relay.builder(store, transport).completionMode(mode).leaseTtl(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(100)).build())
        .build();
    r.start();
    return r;
  }

  /**
   * Runs an inbox consumer named {@code consumer} over {@code messages} whose handler always throws
   * {@code failure}: each message is parked after its one attempt, the real way.
   */
  void park(String consumer, String failure, InboxMessage... messages) throws InterruptedException {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), consumer).build();
    ListSource source = ListSource.of(messages);
    int settled = source.runAtMost(Duration.ofSeconds(20), b -> b.inbox(inbox, db.dataSource())
        .handler((c, m) -> {
          throw new IllegalStateException(failure);
        }).retryPolicy(RetryPolicy.builder().maxAttempts(1).build()));
    if (settled != messages.length || source.parked() != messages.length) {
      throw new IllegalStateException("parked " + source.parked() + " of " + messages.length);
    }
  }

  static InboxMessage message(String id, String aggregateId, String payload) {
    return new InboxMessage(id, "PaymentCaptured", 1, "/payments", "Payment", aggregateId, 1, payload,
        java.util.Map.of("tenant", "t-1"), "corr-" + id, null, null, null, "test@" + id);
  }

  void execute(String sql) throws SQLException {
    try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  boolean published(UUID id) {
    return transport.acked().stream().anyMatch(m -> m.id().equals(id));
  }

  void reset() throws SQLException {
    rejectedTypes.clear();
    try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM twinbox_outbox");
      s.execute("DELETE FROM twinbox_inbox_parked_audit");
      s.execute("DELETE FROM twinbox_inbox_parked");
      s.execute("DELETE FROM twinbox_inbox");
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
