package io.twinbox.faults;

import io.twinbox.testkit.contract.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What every MariaDB producer store provides, whether the database is on the shared server ({@link
 * MariaDbStore}) or on a private one ({@link PrivateMariaDbStore}): the {@code orders} DDL, no
 * extra tables (MariaDB has no deferrable constraints, so the producer's "fails at COMMIT"
 * rollbacks are transactions whose connection is killed just before COMMIT), ids as their text
 * ({@code VARCHAR(36)}), and the relay sessions told apart by their client address.
 */
abstract class MariaDbSchema implements ProducerStore {
  /** The database's name on its server. */
  abstract String databaseName();

  @Override
  public final String kind() {
    return MARIADB;
  }

  @Override
  public final String ordersDdl() {
    return "CREATE TABLE orders (message_id VARCHAR(36) PRIMARY KEY, aggregate_id VARCHAR(255),"
        + " sequence BIGINT NOT NULL, poison BOOLEAN NOT NULL) ENGINE = InnoDB";
  }

  /** None: MariaDB has no deferrable constraints; the producer fails such commits by killing its connection. */
  @Override
  public final String[] extraDdl() {
    return new String[0];
  }

  @Override
  public final Object id(UUID id) {
    return id.toString();
  }

  /**
   * {@code KILL CONNECTION} of the relay sessions: those of this database whose client address is
   * one of the fault proxy's connections (the relays reach MariaDB only through it; the producer
   * and the runner connect directly, under the same user).
   */
  @Override
  public final int terminateRelaySessions(TcpProxy proxy) {
    Set<Integer> ports = proxy.upstreamPorts();
    List<Long> ids = new ArrayList<>();
    try (Connection c = dataSource().getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, host FROM information_schema.processlist WHERE db = ? AND user = ?")) {
        ps.setString(1, databaseName());
        ps.setString(2, user());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String host = rs.getString(2);
            int colon = host == null ? -1 : host.lastIndexOf(':');
            if (colon > 0 && ports.contains(Integer.parseInt(host.substring(colon + 1)))) {
              ids.add(rs.getLong(1));
            }
          }
        }
      }
      int killed = 0;
      try (Statement st = c.createStatement()) {
        for (long id : ids) {
          try {
            st.execute("KILL CONNECTION " + id);
            killed++;
          } catch (SQLException e) {
            // Gone meanwhile (error 1094, unknown thread).
          }
        }
      }
      return killed;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot kill the relay sessions", e);
    }
  }
}
