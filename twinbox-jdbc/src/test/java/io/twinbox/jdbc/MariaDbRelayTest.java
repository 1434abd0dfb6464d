package io.twinbox.jdbc;

import io.twinbox.contract.RelayContract;
import io.twinbox.contract.StoreFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import javax.sql.DataSource;

/** The relay contract on MariaDB. */
class MariaDbRelayTest extends RelayContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }

  /** An id that is not a UUID ({@code id} is a VARCHAR(36) on MariaDB). */
  @Override
  protected String spoilRow(DataSource ds, UUID id) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("UPDATE twinbox_outbox SET id = 'order-17' WHERE id = ?")) {
      ps.setString(1, id.toString());
      ps.executeUpdate();
    }
    return "id";
  }
}
