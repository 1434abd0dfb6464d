package io.twinbox.jdbc;

import io.twinbox.contract.OutboxWriteContract;
import io.twinbox.contract.StoreFixture;

/** The outbox write contract on MariaDB. */
class MariaDbOutboxWriteTest extends OutboxWriteContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
