package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.testkit.MariaDbDatabase;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The commands on MariaDB: the CLI picks the dialect from the URL like the library does. */
class MariaDbCommandsTest {
  static MariaDbDatabase db;

  @BeforeAll
  static void database() {
    db = MariaDbDatabase.create();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void migrateStatusAndListing() {
    Cli cli = new Cli(Map.of("TWINBOX_DB_URL", db.jdbcUrl(),
        "TWINBOX_DB_USER", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_USER"), "root"),
        "TWINBOX_DB_PASSWORD", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_PASSWORD"), "")));
    assertThat(cli.run("status").exitCode()).as("not migrated yet").isEqualTo(ExitCodes.USAGE);
    Cli.Result migrate = cli.run("migrate", "--json");
    assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
    assertThat(migrate.json().get("dialect").asText()).containsIgnoringCase("maria");
    assertThat(cli.run("migrate", "--commit-notifications", "on").exitCode()).as("no NOTIFY on MariaDB")
        .isEqualTo(ExitCodes.USAGE);
    Cli.Result status = cli.run("status", "--json", "--fail-if-failed");
    assertThat(status.exitCode()).as(status.toString()).isZero();
    assertThat(status.json().get("pending").asLong()).isZero();
    assertThat(status.json().get("unownedPartitions").asInt()).isEqualTo(64);
    assertThat(cli.run("failed", "list", "--json").json()).isEmpty();
    assertThat(cli.run("purge", "--older-than", "30d", "--json").json().get("purged").asLong()).isZero();
  }
}
