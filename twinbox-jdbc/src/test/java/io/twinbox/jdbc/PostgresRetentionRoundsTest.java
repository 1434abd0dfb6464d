package io.twinbox.jdbc;

/** {@link RetentionRoundsTests} on PostgreSQL: the lock is {@code pg_try_advisory_lock}. */
class PostgresRetentionRoundsTest extends RetentionRoundsTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
