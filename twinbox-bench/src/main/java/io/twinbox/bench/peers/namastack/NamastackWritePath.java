package io.twinbox.bench.peers.namastack;

import io.namastack.outbox.Outbox;
import io.twinbox.bench.write.WritePath;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The write scenario's namastack-outbox contender: the same business insert as the other paths, then
 * {@code outbox.schedule(new OrderScheduled(...), aggregateId)} in the same transaction — namastack
 * serialises the payload (Jackson) and inserts one {@code outbox_record} row per matching handler
 * (here one) through its JDBC repository, whose {@code TransactionTemplate} joins the transaction.
 *
 * <p>The harness owns the transaction, as for every contender. It is exposed to Spring the way
 * {@code DataSourceTransactionManager} exposes its own: the connection bound as the
 * {@link ConnectionHolder} of the application's {@code DataSource}, marked as in a transaction (so
 * that namastack's {@code TransactionTemplate} joins it instead of committing it), synchronization
 * active. The application's poller does not run during the write scenario (no relay runs there for
 * any contender).
 */
public final class NamastackWritePath implements WritePath {
  private static final String INSERT_ORDER = "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)";

  private final DataSource dataSource;
  private final Outbox outbox;
  private final String topic;

  public NamastackWritePath(ConfigurableApplicationContext ctx, String topic) {
    this.dataSource = ctx.getBean(DataSource.class);
    this.outbox = ctx.getBean(Outbox.class);
    this.topic = topic;
  }

  @Override
  public String name() {
    return "namastack";
  }

  @Override
  public String description() {
    return "INSERT orders + namastack Outbox.schedule(payload, aggregateId) into outbox_record "
        + "(namastack-outbox-starter-jdbc 1.6.0)";
  }

  @Override
  public void prepare(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + Namastack.TABLE);
    }
  }

  @Override
  public void write(Connection c, Order o) throws SQLException {
    TransactionSynchronizationManager.bindResource(dataSource, new HarnessTransaction(c));
    TransactionSynchronizationManager.initSynchronization();
    TransactionSynchronizationManager.setActualTransactionActive(true);
    try {
      try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
        ps.setString(1, o.customer());
        ps.setBigDecimal(2, BigDecimal.valueOf(o.cents(), 2));
        ps.setTimestamp(3, Timestamp.from(Instant.now()));
        ps.executeUpdate();
      }
      outbox.schedule(new OrderScheduled(topic, UUID.randomUUID().toString(), o.payload()), o.aggregateId());
    } finally {
      TransactionSynchronizationManager.setActualTransactionActive(false);
      TransactionSynchronizationManager.clearSynchronization();
      TransactionSynchronizationManager.unbindResource(dataSource);
    }
  }

  /** The harness's connection, in a transaction the harness commits: Spring's transaction templates join it. */
  private static final class HarnessTransaction extends ConnectionHolder {
    HarnessTransaction(Connection c) {
      super(c);
    }

    @Override
    protected boolean isTransactionActive() {
      return true;
    }
  }
}
