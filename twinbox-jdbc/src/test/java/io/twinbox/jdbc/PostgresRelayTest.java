package io.twinbox.jdbc;

import io.twinbox.contract.RelayContract;
import io.twinbox.contract.StoreFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import javax.sql.DataSource;

/** The relay contract on PostgreSQL. */
class PostgresRelayTest extends RelayContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgres();
  }

  /**
   * Headers that are JSON {@code null}, as rows stored before schema V4 may hold them (the schema
   * checks inserts by plain SQL since V4; an UPDATE is not checked).
   */
  @Override
  protected String spoilRow(DataSource ds, UUID id) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("UPDATE twinbox_outbox SET headers = 'null' WHERE id = ?")) {
      ps.setObject(1, id);
      ps.executeUpdate();
    }
    return "headers";
  }
}
