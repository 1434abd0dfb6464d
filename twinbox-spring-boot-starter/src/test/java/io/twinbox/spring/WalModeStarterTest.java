package io.twinbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.OutboxEvent;
import io.twinbox.spi.Transport;
import io.twinbox.spring.autoconfigure.TwinboxAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxHealthAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRelayAutoConfiguration;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PrivatePostgresCluster;
import io.twinbox.testing.RecordingTransport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code twinbox.relay.mode=wal} through the starter, on a private {@code wal_level=logical}
 * cluster: the application's relay streams its slot (named by {@code twinbox.relay.wal-slot}), and
 * the {@code twinbox} health indicator turns DOWN with the reason when the slot is dropped under it.
 */
class WalModeStarterTest {
  private static PrivatePostgresCluster pg;
  private static PGSimpleDataSource ds;

  @BeforeAll
  static void cluster() {
    LocalServers.requireInstalled("PostgreSQL server binaries",
        PrivatePostgresCluster.binaries().orElse(Path.of("/usr/lib/postgresql")), "Debian package postgresql-15");
    pg = PrivatePostgresCluster.builder().setting("wal_level", "logical").setting("fsync", "off")
        .settings(Map.of("max_replication_slots", "4", "max_wal_senders", "4")).start();
    pg.createDatabase("starter");
    ds = new PGSimpleDataSource();
    ds.setURL(pg.jdbcUrl("starter"));
    ds.setUser(PrivatePostgresCluster.USER);
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close(); // deletes the cluster: no slot outlives the test
    }
  }

  @Test
  void theStartersRelayStreamsInWalModeAndItsHealthSeesALostSlot() {
    RecordingTransport transport = RecordingTransport.acking();
    String slot = "twinbox_starter";
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class, TwinboxRelayAutoConfiguration.class,
            TwinboxHealthAutoConfiguration.class))
        .withBean(DataSource.class, () -> ds)
        .withBean(Transport.class, () -> transport)
        .withPropertyValues("twinbox.relay.mode=wal", "twinbox.relay.wal-slot=" + slot, "twinbox.relay.lease-ttl=2s")
        .run(context -> {
          assertThat(context).hasNotFailed();
          TwinboxRelay relay = context.getBean(TwinboxRelay.class);
          await("streaming the named slot").atMost(Duration.ofSeconds(30)).until(() -> activePid(slot) > 0);
          UUID id = new TransactionTemplate(new DataSourceTransactionManager(ds)).execute(status ->
              context.getBean(TransactionalOutbox.class).write(
                  OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "o-1").payload("{}").build()));
          await("published from the stream").atMost(Duration.ofSeconds(30))
              .until(() -> transport.acked().stream().anyMatch(m -> m.id().equals(id)));
          HealthIndicator indicator = context.getBean("twinboxHealthIndicator", HealthIndicator.class);
          assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);

          await("slot dropped").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
            exec("SELECT pg_terminate_backend(active_pid, 5000) FROM pg_replication_slots WHERE slot_name = '"
                + slot + "' AND active_pid IS NOT NULL");
            try {
              exec("SELECT pg_drop_replication_slot('" + slot + "')");
              return true;
            } catch (SQLException e) {
              return false; // the relay reattached in between
            }
          });
          await("health DOWN").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
              .until(() -> indicator.health(true).getStatus().equals(Status.DOWN));
          assertThat(indicator.health(true).getDetails().get("reasons").toString())
              .contains("stopped: replication slot " + slot + " no longer exists");
          assertThat(relay.relay().fault()).isPresent();
        });
  }

  private static int activePid(String slot) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT COALESCE(max(active_pid), 0) FROM pg_replication_slots"
             + " WHERE slot_name = '" + slot + "'")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void exec(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
