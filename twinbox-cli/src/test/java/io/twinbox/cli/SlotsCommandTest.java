package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivatePostgresCluster;
import io.twinbox.testing.RecordingTransport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code twinbox slots list} and {@code twinbox slots drop} against a private {@code
 * wal_level=logical} cluster: a slot a WAL relay streams and an idle one; the active one and a name
 * that is not Twinbox's are refused, the idle one is dropped with its publication. The cluster is
 * deleted at the end: no slot outlives the test.
 */
class SlotsCommandTest {
  private static PrivatePostgresCluster pg;
  private static HikariDataSource ds;
  private static Cli cli;

  @BeforeAll
  static void cluster() {
    LocalServers.requireInstalled("PostgreSQL server binaries",
        PrivatePostgresCluster.binaries().orElse(Path.of("/usr/lib/postgresql")), "Debian package postgresql-15");
    pg = PrivatePostgresCluster.builder().setting("wal_level", "logical").setting("fsync", "off")
        .settings(Map.of("max_replication_slots", "4", "max_wal_senders", "4")).start();
    pg.createDatabase("slots");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(pg.jdbcUrl("slots"));
    hc.setUsername(PrivatePostgresCluster.USER);
    hc.setMaximumPoolSize(6);
    hc.setMinimumIdle(0);
    ds = new HikariDataSource(hc);
    cli = new Cli(Map.of("TWINBOX_DB_URL", pg.jdbcUrl("slots"), "TWINBOX_DB_USER", PrivatePostgresCluster.USER,
        "TWINBOX_DB_PASSWORD", ""));
  }

  @AfterAll
  static void stop() {
    if (ds != null) {
      ds.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void listShowsTheSlotsAndDropRefusesAnActiveOneOrAForeignName() throws Exception {
    JdbcStore store = JdbcStore.builder(ds).build();
    store.migrate();
    Cli.Result none = cli.run("slots", "list");
    assertThat(none.exitCode()).as(none.toString()).isZero();
    assertThat(none.out()).contains("No Twinbox replication slots");

    store.prepareChangeFeed("twinbox_idle"); // made by a relay's start, not streamed
    exec("SELECT pg_create_logical_replication_slot('not_twinbox', 'pgoutput')"); // someone else's
    RecordingTransport transport = RecordingTransport.acking();
    try (Relay relay = Relay.builder(store, transport).mode(RelayMode.WAL).walSlot("twinbox_streamed")
        .nodeId("slots-test").leaseTtl(Duration.ofSeconds(2)).build()) {
      relay.start();
      await("streaming").atMost(Duration.ofSeconds(30)).until(() -> activePid("twinbox_streamed") > 0);
      int pid = activePid("twinbox_streamed");

      Cli.Result list = cli.run("slots", "list", "--json");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      JsonNode slots = list.json();
      assertThat(slots).extracting(s -> s.get("name").asText()).containsExactlyInAnyOrder("twinbox_idle",
          "twinbox_streamed"); // not_twinbox is not Twinbox's
      JsonNode streamed = byName(slots, "twinbox_streamed");
      assertThat(streamed.get("active").asBoolean()).isTrue();
      assertThat(streamed.get("activePid").asInt()).isEqualTo(pid);
      assertThat(streamed.get("database").asText()).isEqualTo("slots");
      assertThat(streamed.get("confirmedLsn").asText()).matches("[0-9A-F]+/[0-9A-F]+");
      assertThat(streamed.get("lagBytes").asLong()).isGreaterThanOrEqualTo(0);
      assertThat(streamed.get("retainedBytes").asLong()).isPositive();
      assertThat(streamed.get("walStatus").asText()).isEqualTo("reserved");
      assertThat(byName(slots, "twinbox_idle").get("active").asBoolean()).isFalse();
      Cli.Result text = cli.run("slots", "list");
      assertThat(text.out()).contains("NAME", "ACTIVE", "CONFIRMED LSN", "LAG", "WAL RETAINED", "twinbox_idle",
          "yes (pid " + pid + ")", "2 slot(s).");

      Cli.Result active = cli.run("slots", "drop", "twinbox_streamed");
      assertThat(active.exitCode()).as(active.toString()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(active.err()).contains("twinbox_streamed is in use by server process " + pid,
          "stop the WAL relays first", "nothing was dropped");
      assertThat(activePid("twinbox_streamed")).as("still streamed").isEqualTo(pid);

      Cli.Result foreign = cli.run("slots", "drop", "not_twinbox");
      assertThat(foreign.exitCode()).as(foreign.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(foreign.err()).contains("NAME must be twinbox followed by", "was 'not_twinbox'");
      assertThat(count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'not_twinbox'")).isEqualTo(1);

      Cli.Result idle = cli.run("slots", "drop", "twinbox_idle", "--json");
      assertThat(idle.exitCode()).as(idle.toString()).isZero();
      assertThat(idle.json().get("dropped").asBoolean()).isTrue();
      assertThat(count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'twinbox_idle'")).isZero();
      assertThat(count("SELECT count(*) FROM pg_publication WHERE pubname = 'twinbox_idle'")).isZero();
      Cli.Result again = cli.run("slots", "drop", "twinbox_idle");
      assertThat(again.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(again.out()).contains("No replication slot twinbox_idle");
    }
    // The relay stopped: its slot can go now.
    await("walsender ended").atMost(Duration.ofSeconds(10)).until(() -> activePid("twinbox_streamed") == 0);
    Cli.Result afterStop = cli.run("slots", "drop", "twinbox_streamed");
    assertThat(afterStop.exitCode()).as(afterStop.toString()).isZero();
    assertThat(afterStop.out()).contains("Dropped replication slot twinbox_streamed");
    assertThat(cli.run("slots", "list", "--json").json()).isEmpty();
    exec("SELECT pg_drop_replication_slot('not_twinbox')");
  }

  private static JsonNode byName(JsonNode slots, String name) {
    for (JsonNode s : slots) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no slot " + name + " in " + slots);
  }

  private static int activePid(String slot) {
    return (int) count("SELECT COALESCE(max(active_pid), 0) FROM pg_replication_slots WHERE slot_name = '" + slot
        + "'");
  }

  private static long count(String sql) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void exec(String sql) throws java.sql.SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
