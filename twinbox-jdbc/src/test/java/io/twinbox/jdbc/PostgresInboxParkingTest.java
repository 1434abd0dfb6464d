package io.twinbox.jdbc;

import io.twinbox.testkit.contract.InboxParkingContract;
import io.twinbox.testkit.contract.StoreFixture;

/** Total parking and bounded consumer loops on PostgreSQL. */
class PostgresInboxParkingTest extends InboxParkingContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
