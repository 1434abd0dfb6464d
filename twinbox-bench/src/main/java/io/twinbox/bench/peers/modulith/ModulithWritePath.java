package io.twinbox.bench.peers.modulith;

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
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The write scenario's Spring Modulith contender: the same business insert as the other paths, then
 * {@code ApplicationEventPublisher.publishEvent(new OrderPlaced(...))} in the same transaction —
 * Modulith's {@code PersistentApplicationEventMulticaster} serialises the event (Jackson) and inserts
 * one {@code event_publication} row for the Kafka externalizer, its transactional listener.
 *
 * <p>The harness owns the transaction, as for every contender. It is exposed to Spring the way
 * {@code DataSourceTransactionManager} exposes its own: the connection bound as the
 * {@link ConnectionHolder} of the application's {@code DataSource}, transaction synchronization
 * active. The synchronizations are dropped at the end, not run: the after-commit externalization
 * (the relay's job) is not part of the write, as for gruelbox and Twinbox.
 */
public final class ModulithWritePath implements WritePath {
  private static final String INSERT_ORDER = "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)";

  private final DataSource dataSource;
  private final ApplicationEventPublisher publisher;
  private final String topic;
  private final String name;

  public ModulithWritePath(ConfigurableApplicationContext ctx, String name, String topic) {
    this.dataSource = ctx.getBean(DataSource.class);
    this.publisher = ctx;
    this.topic = topic;
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return "INSERT orders + Spring Modulith publishEvent(OrderPlaced) into its JDBC event publication registry "
        + "(spring-modulith-events-jdbc 2.0.3)";
  }

  @Override
  public void prepare(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + Modulith.TABLE);
    }
  }

  @Override
  public void write(Connection c, Order o) throws SQLException {
    TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(c));
    TransactionSynchronizationManager.initSynchronization();
    TransactionSynchronizationManager.setActualTransactionActive(true);
    try {
      try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
        ps.setString(1, o.customer());
        ps.setBigDecimal(2, BigDecimal.valueOf(o.cents(), 2));
        ps.setTimestamp(3, Timestamp.from(Instant.now()));
        ps.executeUpdate();
      }
      int before = TransactionSynchronizationManager.getSynchronizations().size();
      publisher.publishEvent(new OrderPlaced(topic, o.aggregateId(), UUID.randomUUID().toString(), o.payload()));
      if (TransactionSynchronizationManager.getSynchronizations().size() == before) {
        throw new SQLException("Spring Modulith registered no transactional listener for the event");
      }
    } finally {
      TransactionSynchronizationManager.setActualTransactionActive(false);
      TransactionSynchronizationManager.clearSynchronization();
      TransactionSynchronizationManager.unbindResource(dataSource);
    }
  }
}
