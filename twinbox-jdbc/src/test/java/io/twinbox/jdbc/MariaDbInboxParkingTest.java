package io.twinbox.jdbc;

import io.twinbox.testkit.contract.InboxParkingContract;
import io.twinbox.testkit.contract.StoreFixture;

/** Total parking and bounded consumer loops on MariaDB. */
class MariaDbInboxParkingTest extends InboxParkingContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
