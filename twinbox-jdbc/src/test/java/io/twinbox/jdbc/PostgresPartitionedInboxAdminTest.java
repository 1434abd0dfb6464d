package io.twinbox.jdbc;

import io.twinbox.contract.InboxAdminContract;
import io.twinbox.contract.StoreFixture;

/** Core's parked-message operator contract on PostgreSQL with the outbox partitioned by time. */
class PostgresPartitionedInboxAdminTest extends InboxAdminContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
