package io.twinbox.jdbc;

import io.twinbox.testkit.contract.InboxContract;
import io.twinbox.testkit.contract.StoreFixture;

/** The inbox contract on MariaDB. */
class MariaDbInboxTest extends InboxContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
