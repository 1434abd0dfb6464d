package io.twinbox.jdbc;

import io.twinbox.testkit.contract.RelayContract;
import io.twinbox.testkit.contract.StoreFixture;

/** The relay contract on MariaDB. */
class MariaDbRelayTest extends RelayContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
