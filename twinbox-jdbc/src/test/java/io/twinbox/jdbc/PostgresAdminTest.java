package io.twinbox.jdbc;

import io.twinbox.testkit.contract.AdminContract;
import io.twinbox.testkit.contract.StoreFixture;

/** The operator contract on PostgreSQL. */
class PostgresAdminTest extends AdminContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
