package io.twinbox.jdbc.internal.wal;

import io.twinbox.ChangeFeedException;
import io.twinbox.ChangeFeedException.Problem;
import io.twinbox.StoreException;
import io.twinbox.jdbc.internal.PgErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * How the WAL relay logs in for its replication connection, which a pool cannot give: pgjdbc needs
 * {@code replication=database} and the simple query protocol when the connection opens. Either
 * given explicitly, or taken from the store's own connections (their URL and user, no password:
 * enough for trust, peer, certificate or URL-embedded logins). The password is never shown.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReplicationLogin {
  private final String url;
  private final String user;
  private final String password;

  private ReplicationLogin(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }

  public static ReplicationLogin of(String url, String user, String password) {
    return new ReplicationLogin(url, user, password);
  }

  /** The URL and user of the store's data source. */
  public static ReplicationLogin fromDataSource() {
    return new ReplicationLogin(null, null, null);
  }

  Connection connect(DataSource dataSource) {
    String u = url;
    String name = user;
    if (u == null) {
      try (Connection c = dataSource.getConnection()) {
        u = c.getMetaData().getURL();
        name = c.getMetaData().getUserName();
      } catch (SQLException e) {
        throw new StoreException("could not read the data source's URL for the replication connection", e);
      }
    }
    Properties props = new Properties();
    if (name != null) {
      PGProperty.USER.set(props, name);
    }
    if (password != null) {
      PGProperty.PASSWORD.set(props, password);
    }
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "12");
    PGProperty.APPLICATION_NAME.set(props, "twinbox-wal-relay");
    try {
      Connection c = new Driver().connect(u, props);
      if (c == null) {
        throw new ChangeFeedException(Problem.LOGIN, "the replication connection needs a jdbc:postgresql: URL, was "
            + withoutParameters(u));
      }
      return c;
    } catch (SQLException e) {
      String state = PgErrors.sqlState(e);
      if ("28000".equals(state) || "28P01".equals(state)) {
        throw new ChangeFeedException(Problem.LOGIN, "the replication connection to " + withoutParameters(u) + " as "
            + name + " was refused (SQLSTATE " + state + "): let pg_hba.conf admit it, and give its password with"
            + " JdbcStore.Builder.replicationLogin(url, user, password) if the data source's URL has none.", e);
      }
      throw new StoreException("could not open the replication connection to " + withoutParameters(u) + " (SQLSTATE "
          + state + ")", e);
    }
  }

  /** The URL up to its parameters, which may hold a password. */
  static String withoutParameters(String url) {
    int q = url == null ? -1 : url.indexOf('?');
    return q < 0 ? String.valueOf(url) : url.substring(0, q);
  }

  @Override
  public String toString() {
    return url == null ? "ReplicationLogin[from the data source]"
        : "ReplicationLogin[" + withoutParameters(url) + " as " + user + ", password ****]";
  }
}
