package io.twinbox.jdbc;

import io.twinbox.contract.DeadLetterContract;
import io.twinbox.contract.StoreFixture;

/** The dead-letter contract on MariaDB. */
class MariaDbDeadLetterTest extends DeadLetterContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
