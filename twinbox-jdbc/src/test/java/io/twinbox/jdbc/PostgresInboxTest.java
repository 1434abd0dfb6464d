package io.twinbox.jdbc;

import io.twinbox.testkit.contract.InboxContract;
import io.twinbox.testkit.contract.StoreFixture;

/** The inbox contract on PostgreSQL. */
class PostgresInboxTest extends InboxContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
