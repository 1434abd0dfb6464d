package io.twinbox.cli;

import io.twinbox.testkit.MariaDbDatabase;
import java.util.Map;
import java.util.Objects;

/** The parked commands on MariaDB: the same scenario, the same exit codes. */
class MariaDbParkedCommandsTest extends ParkedCommandsTest {
  @Override
  Db open() {
    MariaDbDatabase m = MariaDbDatabase.create();
    return new Db(m.dataSource(), Map.of("TWINBOX_DB_URL", m.jdbcUrl(),
        "TWINBOX_DB_USER", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_USER"), "root"),
        "TWINBOX_DB_PASSWORD", Objects.requireNonNullElse(System.getenv("TWINBOX_MARIADB_PASSWORD"), "")), m);
  }
}
