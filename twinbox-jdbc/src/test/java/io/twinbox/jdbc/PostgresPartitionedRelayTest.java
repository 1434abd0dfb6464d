package io.twinbox.jdbc;

import io.twinbox.contract.StoreFixture;

/** The relay contract on PostgreSQL with the outbox partitioned by time (rows spoilt as in the plain one). */
class PostgresPartitionedRelayTest extends PostgresRelayTest {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
