package io.twinbox.jdbc;

import io.twinbox.contract.InboxStoreContract;
import io.twinbox.contract.StoreFixture;

/** Core's inbox store contract on PostgreSQL with the outbox partitioned by time. */
class PostgresPartitionedInboxStoreTest extends InboxStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }
}
