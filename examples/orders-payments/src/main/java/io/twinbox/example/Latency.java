package io.twinbox.example;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Order → paid latency: from the order's {@code created_at} (its insert, in the placing
 * transaction) to its {@code settled_at} (the order service applying the payment's answer), both
 * taken from the orders database's clock — so the figure spans both relays, Kafka twice, the payment
 * service and both inboxes, without any clock skew. Measured per phase of a run, by the orders'
 * {@code created_at}: a burst's figure is mostly time spent queueing behind the orders placed
 * before, a paced phase's is the pipeline's own latency. Stateless.
 */
final class Latency {
  private Latency() {}

  /** Percentiles in milliseconds; {@code count} settled orders measured. */
  record Figures(long count, double p50Ms, double p99Ms, double maxMs) {
    String describe() {
      return count == 0 ? "n/a"
          : String.format(Locale.ROOT, "%,.0f / %,.0f / %,.0f ms", p50Ms, p99Ms, maxMs);
    }
  }

  /** The orders database's clock now: the boundary between two phases. */
  static OffsetDateTime now(DataSource orders) throws SQLException {
    try (Connection c = orders.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getObject(1, OffsetDateTime.class);
    }
  }

  /** Every settled order. */
  static Figures measure(DataSource orders) throws SQLException {
    return measure(orders, null, null);
  }

  /**
   * The settled orders created from {@code from} (inclusive) until {@code until} (exclusive);
   * a null bound is open.
   */
  static Figures measure(DataSource orders, OffsetDateTime from, OffsetDateTime until) throws SQLException {
    String sql = """
        SELECT count(*),
               percentile_cont(0.50) WITHIN GROUP (ORDER BY ms),
               percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
               max(ms)
          FROM (SELECT extract(epoch FROM settled_at - created_at) * 1000 AS ms
                  FROM orders WHERE settled_at IS NOT NULL""" + (from == null ? "" : " AND created_at >= ?")
        + (until == null ? "" : " AND created_at < ?") + ") t";
    try (Connection c = orders.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
      int i = 0;
      if (from != null) {
        st.setObject(++i, from);
      }
      if (until != null) {
        st.setObject(++i, until);
      }
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new Figures(rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4));
      }
    }
  }
}
