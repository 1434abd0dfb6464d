package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.ChangeFeedException;
import io.twinbox.ChangeFeedException.Problem;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 7 of issue 15: a wrong setup stops the WAL relay with a {@link ChangeFeedException}
 * whose problem and message name the fix, and leaves nothing half-created — no publication, no
 * slot. {@code wal_level=replica} is the shared server's own setting (only read, never changed);
 * the rest runs on a private {@code wal_level=logical} cluster limited to 3 replication slots.
 */
class PostgresChangeFeedSetupTest {
  private static LogicalCluster pg;
  private static DataSource superuser;

  @BeforeAll
  static void cluster() {
    pg = LogicalCluster.start(Map.of("max_replication_slots", "3", "max_wal_senders", "4"));
    superuser = pg.database("setup");
    JdbcStore.builder(superuser).build().migrate();
    pg.exec("setup", "CREATE ROLE plain LOGIN", "CREATE ROLE repl LOGIN REPLICATION",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO plain, repl");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void walLevelReplicaNamesTheSettingAndCreatesNothing() {
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    try (PostgresDatabase shared = PostgresDatabase.create()) {
      JdbcStore store = JdbcStore.builder(shared.dataSource()).build();
      store.migrate();
      assertThat(query(shared.dataSource(), "SELECT current_setting('wal_level')")).containsExactly("replica");
      Relay relay = Relay.builder(store, RecordingTransport.acking()).mode(RelayMode.WAL).walSlot("twinbox_replica")
          .build();
      assertThatThrownBy(relay::start).isInstanceOfSatisfying(ChangeFeedException.class, e -> {
        assertThat(e.problem()).isEqualTo(Problem.WAL_LEVEL);
        assertThat(e.getMessage()).contains("wal_level", "'logical'", "restart");
      });
      relay.close();
      assertThat(query(shared.dataSource(), "SELECT pubname FROM pg_publication")).isEmpty();
      assertThat(query(shared.dataSource(), "SELECT slot_name FROM pg_replication_slots"
          + " WHERE slot_name = 'twinbox_replica'")).isEmpty();
    }
  }

  @Test
  void roleWithoutReplicationIsToldToGetIt() {
    JdbcStore store = JdbcStore.builder(pg.pool("setup", "plain")).build();
    assertThatThrownBy(() -> store.prepareChangeFeed("twinbox_plain")).isInstanceOfSatisfying(
        ChangeFeedException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NO_REPLICATION_PRIVILEGE);
          assertThat(e.getMessage()).contains("ALTER ROLE plain REPLICATION");
        });
    assertNothingCreated("twinbox_plain");
  }

  @Test
  void missingPublicationThatTheRoleMayNotCreateNamesTheStatement() {
    JdbcStore store = JdbcStore.builder(pg.pool("setup", "repl")).build();
    assertThatThrownBy(() -> store.prepareChangeFeed("twinbox_repl")).isInstanceOfSatisfying(
        ChangeFeedException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.PUBLICATION_MISSING);
          assertThat(e.getMessage()).contains("CREATE PUBLICATION twinbox_repl FOR TABLE \"public\".twinbox_outbox"
              + " WITH (publish = 'insert', publish_via_partition_root = true)");
        });
    assertNothingCreated("twinbox_repl");

    // Created by the owner as the message says, the same role then gets its slot.
    pg.exec("setup", "CREATE PUBLICATION twinbox_repl FOR TABLE public.twinbox_outbox WITH (publish = 'insert')");
    try {
      store.prepareChangeFeed("twinbox_repl");
      assertThat(pg.slotNames()).contains("twinbox_repl");
    } finally {
      JdbcStore.builder(superuser).build().dropWalSlot("twinbox_repl");
    }
  }

  @Test
  void alteredPublicationIsRefused() {
    pg.exec("setup", "CREATE PUBLICATION twinbox_altered FOR TABLE twinbox_outbox");
    try {
      JdbcStore store = JdbcStore.builder(superuser).build();
      assertThatThrownBy(() -> store.prepareChangeFeed("twinbox_altered")).isInstanceOfSatisfying(
          ChangeFeedException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.PUBLICATION_ALTERED);
            assertThat(e.getMessage()).contains("update=true", "DROP PUBLICATION twinbox_altered");
          });
      assertThat(pg.slotNames()).doesNotContain("twinbox_altered");
    } finally {
      pg.exec("setup", "DROP PUBLICATION twinbox_altered");
    }
  }

  @Test
  void exhaustedSlotsAreReportedAndThePublicationJustCreatedIsDroppedAgain() {
    List<String> taken = new ArrayList<>();
    for (int i = 0; pg.slotNames().size() < 3; i++) {
      pg.exec("setup", "SELECT pg_create_logical_replication_slot('other_" + i + "', 'test_decoding')");
      taken.add("other_" + i);
    }
    try {
      JdbcStore store = JdbcStore.builder(superuser).build();
      assertThatThrownBy(() -> store.prepareChangeFeed("twinbox_full")).isInstanceOfSatisfying(
          ChangeFeedException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.SLOTS_EXHAUSTED);
            assertThat(e.getMessage()).contains("max_replication_slots", "all 3 slots");
          });
      assertNothingCreated("twinbox_full");
    } finally {
      taken.forEach(s -> pg.exec("setup", "SELECT pg_drop_replication_slot('" + s + "')"));
    }
  }

  @Test
  void aSlotOfAnotherPluginIsNotTaken() {
    pg.exec("setup", "SELECT pg_create_logical_replication_slot('twinbox_td', 'test_decoding')");
    try {
      JdbcStore store = JdbcStore.builder(superuser).build();
      assertThatThrownBy(() -> store.prepareChangeFeed("twinbox_td")).isInstanceOfSatisfying(
          ChangeFeedException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.SLOT_MISMATCH);
            assertThat(e.getMessage()).contains("test_decoding", "walSlot");
          });
      assertThat(query(superuser, "SELECT pubname FROM pg_publication")).doesNotContain("twinbox_td");
    } finally {
      pg.exec("setup", "SELECT pg_drop_replication_slot('twinbox_td')");
    }
  }

  @Test
  void walModeOnMariaDbFailsAtBuild() {
    LocalServers.require("MariaDB", "127.0.0.1", 3306);
    try (MariaDbDatabase db = MariaDbDatabase.create()) {
      JdbcStore store = JdbcStore.builder(db.dataSource()).build();
      assertThatThrownBy(() -> Relay.builder(store, RecordingTransport.acking()).mode(RelayMode.WAL).build())
          .isInstanceOfSatisfying(ChangeFeedException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.UNSUPPORTED);
            assertThat(e.getMessage()).contains("mariadb", "RelayMode.POLLING");
          });
      assertThat(Relay.builder(store, RecordingTransport.acking()).build()).isNotNull();
    }
  }

  private static void assertNothingCreated(String name) {
    assertThat(query(superuser, "SELECT pubname FROM pg_publication")).doesNotContain(name);
    assertThat(pg.slotNames()).doesNotContain(name);
  }

  private static List<String> query(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
