package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.TransactionOutbox;
import io.twinbox.bench.write.WritePath;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * The write scenario's gruelbox contender: the same business insert as the other paths, then
 * {@code outbox.schedule(KafkaSender.class).send(...)} in the same transaction — gruelbox serialises
 * the call (JSON, its default serializer) and inserts it into {@code txno_outbox}.
 */
public final class GruelboxWritePath implements WritePath {
  private static final String INSERT_ORDER = "INSERT INTO orders (customer, amount, created_at) VALUES (?, ?, ?)";

  private final HarnessTransactionManager tm = new HarnessTransactionManager();
  private final TransactionOutbox outbox;
  private final String topic;

  public GruelboxWritePath(String topic) {
    this.topic = topic;
    this.outbox = Gruelbox.outbox(tm, new KafkaSender(), Gruelbox.none(), false);
  }

  @Override
  public String name() {
    return "gruelbox";
  }

  @Override
  public String description() {
    return "INSERT orders + gruelbox outbox.schedule(KafkaSender.class).send(...) (transactionoutbox-core 4.2.268)";
  }

  @Override
  public void prepare(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("TRUNCATE " + Gruelbox.TABLE);
    }
  }

  @Override
  public void write(Connection c, Order o) throws SQLException {
    try {
      tm.join(c, () -> {
        try (PreparedStatement ps = c.prepareStatement(INSERT_ORDER)) {
          ps.setString(1, o.customer());
          ps.setBigDecimal(2, BigDecimal.valueOf(o.cents(), 2));
          ps.setTimestamp(3, Timestamp.from(Instant.now()));
          ps.executeUpdate();
        }
        outbox.schedule(KafkaSender.class).send(topic, o.aggregateId(), UUID.randomUUID().toString(), o.payload());
      });
    } catch (SQLException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new SQLException(e);
    }
  }
}
