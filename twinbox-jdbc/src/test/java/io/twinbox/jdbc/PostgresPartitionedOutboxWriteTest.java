package io.twinbox.jdbc;

import io.twinbox.contract.OutboxWriteContract;
import io.twinbox.contract.StoreFixture;

/** The outbox write contract on PostgreSQL with the outbox partitioned by time. */
class PostgresPartitionedOutboxWriteTest extends OutboxWriteContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
