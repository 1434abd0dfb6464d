package io.twinbox.jdbc;

import io.twinbox.contract.OutboxWriteContract;
import io.twinbox.contract.StoreFixture;

/** The outbox write contract on PostgreSQL. */
class PostgresOutboxWriteTest extends OutboxWriteContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
