package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.MariaDbDatabase;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** {@code twinbox migrate --partitioned}: the opt-in outbox partitioned by time, and its refusals. */
class MigratePartitionedCommandTest {
  @Test
  void migratePartitionedConvertsTheOutboxWithTheGivenLayout() throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      Cli cli = new Cli(Map.of("TWINBOX_DB_URL", db.jdbcUrl(), "TWINBOX_DB_USER", db.user(),
          "TWINBOX_DB_PASSWORD", db.password()));
      Cli.Result plain = cli.run("migrate", "--json");
      assertThat(plain.exitCode()).as(plain.toString()).isZero();
      assertThat(plain.json().get("partitioned").asBoolean()).isFalse();

      Cli.Result usage = cli.run("migrate", "--partition-interval", "1h");
      assertThat(usage.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(usage.err()).contains("need --partitioned");
      Cli.Result tooShort = cli.run("migrate", "--partitioned", "--partition-interval", "30s");
      assertThat(tooShort.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(tooShort.err()).contains("partition interval must be whole seconds and >= 1 minute, was PT30S");
      assertThat(Sql.rows(db.dataSource(), "SELECT relkind FROM pg_class WHERE relname = 'twinbox_outbox'"))
          .as("nothing converted by a refused call").containsExactly("r");

      Cli.Result converted = cli.run("migrate", "--partitioned", "--partition-interval", "1h", "--partitions-ahead", "2",
          "--json");
      assertThat(converted.exitCode()).as(converted.toString()).isZero();
      assertThat(converted.json().get("partitioned").asBoolean()).isTrue();
      assertThat(Sql.rows(db.dataSource(), "SELECT interval_seconds, ahead FROM twinbox_outbox_partitioning"))
          .containsExactly("3600|2");
      assertThat(Sql.rows(db.dataSource(), "SELECT count(*) FROM twinbox_outbox_partitions"
          + " WHERE upper_bound > clock_timestamp()")).containsExactly("3");
      // A later plain migrate keeps it partitioned and says so.
      assertThat(cli.run("migrate").out()).contains("The outbox is partitioned by time.");
      assertThat(cli.run("status").exitCode()).isZero();
    }
  }

  @Test
  void mariaDbRefusesThePartitionedOutboxAndSaysWhy() throws Exception {
    try (MariaDbDatabase db = MariaDbDatabase.create()) {
      Cli cli = new Cli(Map.of("TWINBOX_DB_URL", db.jdbcUrl(),
          "TWINBOX_DB_USER", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_USER"), "root"),
          "TWINBOX_DB_PASSWORD", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_PASSWORD"), "")));
      Cli.Result r = cli.run("migrate", "--partitioned");
      assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err()).contains("MariaDB has no partitioned outbox").contains("unique key")
          .contains("docs/partitioned-outbox.md");
      assertThat(List.of(r.out())).noneMatch(o -> o.contains("up to date"));
    }
  }
}
