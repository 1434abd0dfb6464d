package io.twinbox.jdbc;

import io.twinbox.contract.AdminContract;
import io.twinbox.contract.StoreFixture;

/** The operator contract on PostgreSQL. */
class PostgresAdminTest extends AdminContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
