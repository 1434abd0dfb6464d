package io.twinbox.jdbc;

import io.twinbox.contract.InboxStoreContract;
import io.twinbox.contract.StoreFixture;

/** Core's inbox store contract on MariaDB. */
class MariaDbInboxStoreTest extends InboxStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
