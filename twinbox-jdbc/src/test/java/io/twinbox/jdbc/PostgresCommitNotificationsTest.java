package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Commit notifications are opt-in since schema V3: off, a commit sends no {@code NOTIFY} (so
 * writers do not serialise on its lock); on, a relay whose poll interval is a minute still
 * publishes a new event at once.
 */
class PostgresCommitNotificationsTest {
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

  @AfterEach
  void offAndEmpty() throws Exception {
    fixture.jdbcStore().setCommitNotifications(false);
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM twinbox_outbox");
    }
  }

  @Test
  void offAfterMigrationSoACommitSendsNothing() throws Exception {
    assertThat(fixture.jdbcStore().commitNotifications()).isFalse();
    assertThat(notificationsForOneWrite()).isZero();
  }

  @Test
  void onSendsOneNotificationPerCommitAndCanBeTurnedOffAgain() throws Exception {
    fixture.jdbcStore().setCommitNotifications(true);
    assertThat(fixture.jdbcStore().commitNotifications()).isTrue();
    assertThat(notificationsForOneWrite()).isEqualTo(1);
    fixture.jdbcStore().setCommitNotifications(false);
    assertThat(notificationsForOneWrite()).isZero();
  }

  @Test
  void onWakesAnIdleRelayLongBeforeItsPollInterval() throws Exception {
    fixture.jdbcStore().setCommitNotifications(true);
    RecordingTransport t = RecordingTransport.acking();
    try (Relay r = Relay.builder(fixture.store(), t).pollInterval(Duration.ofMinutes(1))
        .leaseTtl(Duration.ofSeconds(3)).build()) {
      r.start();
      await().atMost(Duration.ofSeconds(20))
          .until(() -> fixture.jdbcStore().status().leaseOwners().getOrDefault(r.nodeId(), 0) == 64);
      Thread.sleep(500); // every worker has claimed nothing and now waits out its one-minute interval
      write("woken");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> t.acked().stream().anyMatch(m -> m.aggregateId().equals("woken")));
    }
  }

  private static void write(String aggregateId) throws Exception {
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId).payload("{}").build());
      c.commit();
    }
  }

  /** Notifications a listening session receives for one committed write. */
  private static int notificationsForOneWrite() throws Exception {
    try (Connection listen = fixture.dataSource().getConnection()) {
      listen.setAutoCommit(true);
      try (Statement st = listen.createStatement()) {
        st.execute("LISTEN " + PostgresDialect.CHANNEL);
      }
      write("n-" + System.nanoTime());
      PGNotification[] got = listen.unwrap(PGConnection.class).getNotifications(1_000);
      try (Statement st = listen.createStatement()) {
        st.execute("UNLISTEN *");
      }
      return got == null ? 0 : got.length;
    }
  }
}
