package io.twinbox.jdbc;

/**
 * Plain-SQL writers on PostgreSQL with the outbox partitioned by time: the trigger's rules, the ids
 * it generates and its supplied-id ledger (a reused id is refused without a unique index on id).
 */
class PostgresPartitionedPlainSqlWriterTest extends PostgresPlainSqlWriterTest {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
