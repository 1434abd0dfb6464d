package io.twinbox.jdbc;

import io.twinbox.testkit.contract.OutboxWriteContract;
import io.twinbox.testkit.contract.StoreFixture;

/** The outbox write contract on MariaDB. */
class MariaDbOutboxWriteTest extends OutboxWriteContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
