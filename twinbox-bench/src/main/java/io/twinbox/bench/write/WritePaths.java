package io.twinbox.bench.write;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.write.WritePath.Order;

/** The write paths of issue 2: business row alone, + raw-SQL outbox rows, + Twinbox. */
public final class WritePaths {
  private WritePaths() {}

  public static final String ORDERS_DDL = """
      CREATE TABLE IF NOT EXISTS orders (
        id bigserial PRIMARY KEY, customer text NOT NULL, amount numeric(12,2) NOT NULL,
        created_at timestamptz NOT NULL)""";

  static final String INSERT_ORDER =
      "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)";

  /**
   * The library's ordered insert, copied verbatim from {@code PostgresDialect.INSERT_ORDERED}
   * (twinbox-jdbc): the per-aggregate counter upsert in a CTE feeding the outbox insert.
   */
  static final String RAW_INSERT_ORDERED = """
      WITH s AS (
        INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence) VALUES (?, ?, 1)
        ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
        RETURNING last_sequence)
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      SELECT ?, ?, ?, s.last_sequence, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ? FROM s""";

  /** The same outbox row without the counter (sequence 0): what a naive outbox writes. */
  static final String RAW_INSERT_PLAIN = """
      INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers,
                                  correlation_id, causation_id, traceparent, occurred_at)
      VALUES (?, ?, ?, 0, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?)""";

  /**
   * Enables or disables the outbox's statement trigger that issues {@code NOTIFY twinbox_outbox}
   * (opt-in since schema V3; what {@code JdbcStore.setCommitNotifications} does): used to show what
   * the notification costs the writers.
   */
  public static void setNotifyTrigger(Connection c, boolean enabled) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE twinbox_outbox " + (enabled ? "ENABLE" : "DISABLE") + " TRIGGER twinbox_outbox_notify");
    }
  }

  public static void insertOrder(Connection c, Order o, Timestamp now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
      ps.setString(1, o.customer());
      ps.setBigDecimal(2, BigDecimal.valueOf(o.cents(), 2));
      ps.setTimestamp(3, now);
      ps.executeUpdate();
    }
  }

  /** (a) The business insert alone. */
  public static WritePath businessOnly() {
    return new WritePath() {
      @Override
      public String name() {
        return "business-only";
      }

      @Override
      public String description() {
        return "INSERT orders";
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        insertOrder(c, o, Timestamp.from(Instant.now()));
      }
    };
  }

  /** (b) Business insert + the library's outbox statement, in raw JDBC. */
  public static WritePath rawSql() {
    return new RawOutbox("raw-sql", "INSERT orders + outbox row with counter CTE (= PostgresDialect.INSERT_ORDERED)",
        true, false);
  }

  /** (b') Business insert + an outbox row without the per-aggregate counter. */
  public static WritePath rawSqlPlain() {
    return new RawOutbox("raw-sql-plain", "INSERT orders + outbox row, no counter (sequence 0)", false, false);
  }

  /**
   * (b'') Like {@link #rawSql()} with the outbox's opt-in NOTIFY trigger enabled for the
   * measurement: shows what commit notifications cost the writers.
   */
  public static WritePath rawSqlNotify() {
    return new RawOutbox("raw-sql-notify", "as raw-sql, NOTIFY trigger enabled (opt-in)", true, true);
  }

  /** (c) Business insert + {@link Outbox#write}. */
  public static WritePath twinbox(Outbox outbox) {
    return twinbox(outbox, false);
  }

  /** (c'') Like {@link #twinbox(Outbox)} with the opt-in NOTIFY trigger enabled for the measurement. */
  public static WritePath twinboxNotify(Outbox outbox) {
    return twinbox(outbox, true);
  }

  private static WritePath twinbox(Outbox outbox, boolean notify) {
    return new WritePath() {
      @Override
      public String name() {
        return notify ? "twinbox-notify" : "twinbox";
      }

      @Override
      public String description() {
        return "INSERT orders + Outbox.write (library)" + (notify ? ", NOTIFY trigger enabled (opt-in)" : "");
      }

      @Override
      public void prepare(Connection c) throws SQLException {
        if (notify) {
          setNotifyTrigger(c, true);
        }
      }

      @Override
      public void finish(Connection c) throws SQLException {
        if (notify) {
          setNotifyTrigger(c, false);
        }
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        writeOrder(c, o, outbox);
      }
    };
  }

  /**
   * Business insert + {@link Outbox#write} after {@code SET LOCAL search_path}: the plain and the
   * partitioned outbox live in two schemas of one database, so that both are measured in the same
   * run with the same statements and round trips ({@code twinbox-sp} on {@code public},
   * {@code twinbox-partitioned} on {@code twinbox_part}).
   */
  public static WritePath inSchema(String name, String searchPath, Outbox outbox) {
    String set = "SET LOCAL search_path TO " + searchPath;
    return new WritePath() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return set + "; INSERT orders + Outbox.write (library)";
      }

      @Override
      public void write(Connection c, Order o) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
          st.execute(set);
        }
        writeOrder(c, o, outbox);
      }
    };
  }

  /** The business insert and the library's event of one order: what every library path writes. */
  private static void writeOrder(Connection c, Order o, Outbox outbox) throws SQLException {
        insertOrder(c, o, Timestamp.from(Instant.now()));
        outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", o.aggregateId())
            .payload(o.payload()).build());
  }

  private static final class RawOutbox implements WritePath {
    private final String name;
    private final String description;
    private final boolean counter;
    private final boolean notify;

    RawOutbox(String name, String description, boolean counter, boolean notify) {
      this.name = name;
      this.description = description;
      this.counter = counter;
      this.notify = notify;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public void prepare(Connection c) throws SQLException {
      if (notify) {
        setNotifyTrigger(c, true);
      }
    }

    @Override
    public void finish(Connection c) throws SQLException {
      if (notify) {
        setNotifyTrigger(c, false);
      }
    }

    @Override
    public void write(Connection c, Order o) throws SQLException {
      Instant now = Instant.now();
      insertOrder(c, o, Timestamp.from(now));
      try (PreparedStatement ps = c.prepareStatement(counter ? RAW_INSERT_ORDERED : RAW_INSERT_PLAIN)) {
        int i = 1;
        if (counter) {
          ps.setString(i++, "Order");
          ps.setString(i++, o.aggregateId());
        }
        ps.setObject(i++, Payloads.uuidV7());
        ps.setString(i++, "Order");
        ps.setString(i++, o.aggregateId());
        ps.setString(i++, "OrderCreated");
        ps.setInt(i++, 1);
        ps.setString(i++, o.payload());
        ps.setString(i++, "{}");
        ps.setString(i++, null);
        ps.setString(i++, null);
        ps.setString(i++, null);
        ps.setTimestamp(i, Timestamp.from(now));
        ps.executeUpdate();
      }
    }
  }
}
