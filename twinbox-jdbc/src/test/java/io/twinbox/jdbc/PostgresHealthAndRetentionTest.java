package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Health;
import io.twinbox.Inbox;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.Retention;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The health verdict and the retention job against a real database. */
class PostgresHealthAndRetentionTest {
  static JdbcFixture fixture;
  static Outbox outbox;

  @BeforeAll
  static void setUp() {
    fixture = JdbcFixture.postgres();
    outbox = Outbox.builder(fixture.store()).build();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @BeforeEach
  void clean() throws Exception {
    exec("DELETE FROM twinbox_outbox; DELETE FROM twinbox_inbox; UPDATE twinbox_relay_lease SET owner = NULL");
  }

  static void exec(String sql) throws Exception {
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  static long count(String sql) throws Exception {
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void write(int n) throws Exception {
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", "o-" + i).payload("{}").build());
      }
      c.commit();
    }
  }

  @Test
  void healthIsDownWhenNothingDrainsAndUpWhenARelayDoes() throws Exception {
    Health health = new Health(fixture.jdbcStore(), Duration.ofSeconds(30));
    assertThat(health.check().up()).as("empty outbox, no relay").isTrue();
    write(5);
    Health.Report noRelay = health.check();
    assertThat(noRelay.up()).isFalse();
    assertThat(noRelay.reasons()).singleElement().asString().contains("5 events pending but no live relay");
    exec("UPDATE twinbox_outbox SET created_at = clock_timestamp() - interval '2 minutes'");
    assertThat(health.check().reasons()).anySatisfy(r -> assertThat(r).contains("oldest pending event is 12"));
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = Relay.builder(fixture.store(), t).leaseTtl(Duration.ofSeconds(2)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> health.check().up());
      assertThat(health.check().status().leaseOwners()).containsEntry(r.nodeId(), 64);
    }
  }

  @Test
  void retentionDeletesOldPublishedEventsAndInboxRecordsInBatchesAndKeepsFailedOnes() throws Exception {
    write(1_234);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = Relay.builder(fixture.store(), t).completionMode(CompletionMode.MARK)
        .leaseTtl(Duration.ofSeconds(2)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> count(
          "SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") == 1_234);
    }
    exec("UPDATE twinbox_outbox SET published_at = clock_timestamp() - interval '31 days'");
    exec("UPDATE twinbox_outbox SET status = 'FAILED', published_at = NULL WHERE aggregate_id = 'o-7'");
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "c").build();
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 300; i++) {
        inbox.process(c, new InboxMessage("m" + i, "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null,
            null, null), (conn, m) -> { });
      }
      c.commit();
    }
    exec("UPDATE twinbox_inbox SET received_at = clock_timestamp() - interval '91 days' WHERE message_id <> 'm0'");
    Retention retention = Retention.builder().outbox(fixture.jdbcStore(), Duration.ofDays(30))
        .inbox(fixture.inboxStore(), Duration.ofDays(90)).batchSize(100).build();
    Retention.Result result = retention.runOnce();
    assertThat(result.publishedEvents()).isEqualTo(1_233);
    assertThat(result.inboxRecords()).isEqualTo(299);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM twinbox_inbox")).isEqualTo(1);
    assertThat(retention.runOnce()).isEqualTo(new Retention.Result(0, 0, 0));
  }
}
