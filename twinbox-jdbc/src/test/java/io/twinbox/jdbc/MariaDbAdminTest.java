package io.twinbox.jdbc;

import io.twinbox.contract.AdminContract;
import io.twinbox.contract.StoreFixture;

/** The operator contract on MariaDB. */
class MariaDbAdminTest extends AdminContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
