package io.twinbox.jdbc;

import io.twinbox.contract.InboxAdminContract;
import io.twinbox.contract.StoreFixture;

/** Core's parked-message operator contract on PostgreSQL. */
class PostgresInboxAdminTest extends InboxAdminContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
