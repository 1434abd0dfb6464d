package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * How the harness sets up gruelbox transaction-outbox ({@code com.gruelbox:transactionoutbox-core}):
 * its builder with the PostgreSQL persistor, an instantiator that hands out the {@link KafkaSender},
 * and a submitter. Everything else is left at gruelbox's defaults (attempt frequency 2 min, flush
 * batch 4096, block after 5 attempts).
 *
 * <p>Two settings, as the README describes them: <b>default</b> — {@code Submitter.withDefaultExecutor()},
 * which is a 1-thread pool (min(1, common-pool parallelism)) with a 16,384-entry queue;
 * <b>tuned</b> — {@code Submitter.withExecutor} on a pool of {@code threads} threads, the README's
 * advice for production ("you will almost certainly want to use your own executor").
 */
public final class Gruelbox {
  private Gruelbox() {}

  /** The gruelbox table name (its default). */
  public static final String TABLE = "txno_outbox";

  /** A settings variant. */
  public record Setup(String name, int threads) {
    public static Setup defaults() {
      return new Setup("gruelbox", 1);
    }

    public static Setup tuned(int threads) {
      return new Setup("gruelbox-tuned", threads);
    }

    /** The executor of this setup; for defaults, exactly what {@code withDefaultExecutor()} builds. */
    public ThreadPoolExecutor executor() {
      int n = name.equals("gruelbox") ? Math.min(1, ForkJoinPool.commonPool().getParallelism()) : threads;
      return new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(16384));
    }
  }

  /** Creates gruelbox's tables (its own migrations) in the database behind {@code ds}. */
  public static void migrate(DataSource ds) {
    Persistor.forDialect(Dialect.POSTGRESQL_9).migrate(TransactionManager.fromDataSource(ds));
  }

  /**
   * An outbox on {@code tm}.
   *
   * @param migrate whether it runs gruelbox's migrations at start (needs a transaction manager that
   *     can open transactions); the tables exist already when {@link #migrate} ran
   */
  public static TransactionOutbox outbox(TransactionManager tm, KafkaSender sender, Submitter submitter,
      boolean migrate) {
    return TransactionOutbox.builder()
        .transactionManager(tm)
        .persistor(migrate ? Persistor.forDialect(Dialect.POSTGRESQL_9)
            : DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).migrate(false).build())
        .instantiator(Instantiator.using(c -> sender))
        .submitter(submitter)
        .build();
  }

  /** A submitter that runs nothing: entries stay pending (for pre-filling and the write scenario). */
  public static Submitter none() {
    return (entry, processor) -> {};
  }

  public static void clear(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      st.execute("TRUNCATE " + TABLE);
    }
  }

  /** Unprocessed entries left. */
  public static long pending(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM " + TABLE + " WHERE processed IS NOT TRUE")) {
      rs.next();
      return rs.getLong(1);
    }
  }

}
