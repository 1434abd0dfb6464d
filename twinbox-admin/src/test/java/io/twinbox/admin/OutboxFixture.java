package io.twinbox.admin;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.RecordingTransport;
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
    Relay r = Relay.builder(store, transport).leaseTtl(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(100)).build())
        .build();
    r.start();
    return r;
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
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
