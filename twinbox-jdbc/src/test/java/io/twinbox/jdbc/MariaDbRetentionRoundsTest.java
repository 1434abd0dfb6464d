package io.twinbox.jdbc;

/** {@link RetentionRoundsTests} on MariaDB: the lock is {@code GET_LOCK(name, 0)}. */
class MariaDbRetentionRoundsTest extends RetentionRoundsTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
