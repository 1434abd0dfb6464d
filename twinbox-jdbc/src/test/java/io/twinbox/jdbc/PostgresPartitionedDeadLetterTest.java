package io.twinbox.jdbc;

import io.twinbox.contract.DeadLetterContract;
import io.twinbox.contract.StoreFixture;

/** The dead-letter contract on PostgreSQL with the outbox partitioned by time. */
class PostgresPartitionedDeadLetterTest extends DeadLetterContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
