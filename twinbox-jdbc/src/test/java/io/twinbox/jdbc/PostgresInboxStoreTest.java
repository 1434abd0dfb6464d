package io.twinbox.jdbc;

import io.twinbox.contract.InboxStoreContract;
import io.twinbox.contract.StoreFixture;

/** Core's inbox store contract on PostgreSQL. */
class PostgresInboxStoreTest extends InboxStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
