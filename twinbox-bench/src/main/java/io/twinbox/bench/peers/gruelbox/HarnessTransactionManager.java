package io.twinbox.bench.peers.gruelbox;

import com.gruelbox.transactionoutbox.NoTransactionActiveException;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.ThrowingTransactionalSupplier;
import com.gruelbox.transactionoutbox.Transaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lets gruelbox write into a transaction that the harness opened and will commit, the way its
 * Spring and jOOQ integrations join the application's transaction: a thread-local "current
 * transaction" over the caller's connection. Used only by the write scenario, whose harness owns
 * the transaction for every contender alike.
 *
 * <p>gruelbox batches its outbox inserts ({@link Transaction#prepareBatchStatement}) and executes
 * them just before commit; {@link #join} does the same before it returns. Post-commit hooks (which
 * hand the new entry to the submitter) are dropped: the write scenario measures the write alone,
 * as it does for Twinbox, whose relay is not running then either.
 */
final class HarnessTransactionManager implements ThreadLocalContextTransactionManager {
  private final ThreadLocal<JoinedTransaction> current = new ThreadLocal<>();

  /** Runs {@code work} with {@code c}'s open transaction as gruelbox's current transaction. */
  void join(Connection c, SqlWork work) throws Exception {
    JoinedTransaction tx = new JoinedTransaction(c);
    current.set(tx);
    try {
      work.run();
      tx.flushBatches();
    } finally {
      current.remove();
      tx.close();
    }
  }

  @FunctionalInterface
  interface SqlWork {
    void run() throws Exception;
  }

  @Override
  public <T, E extends Exception> T inTransactionReturnsThrows(ThrowingTransactionalSupplier<T, E> work) {
    throw new UnsupportedOperationException("the write scenario's transactions are opened by the harness");
  }

  @Override
  public <T, E extends Exception> T requireTransactionReturns(ThrowingTransactionalSupplier<T, E> work)
      throws E, NoTransactionActiveException {
    JoinedTransaction tx = current.get();
    if (tx == null) {
      throw new NoTransactionActiveException();
    }
    return work.doWork(tx);
  }

  private static final class JoinedTransaction implements Transaction {
    private final Connection connection;
    private final Map<String, PreparedStatement> batches = new LinkedHashMap<>();
    private final List<Runnable> hooks = new ArrayList<>();

    JoinedTransaction(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Connection connection() {
      return connection;
    }

    @Override
    public PreparedStatement prepareBatchStatement(String sql) {
      return batches.computeIfAbsent(sql, s -> {
        try {
          return connection.prepareStatement(s);
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    }

    @Override
    public void addPostCommitHook(Runnable hook) {
      hooks.add(hook);
    }

    /** Executes gruelbox's batched inserts; fails if there were none, i.e. gruelbox wrote nothing. */
    void flushBatches() throws SQLException {
      int rows = 0;
      for (PreparedStatement ps : batches.values()) {
        for (int n : ps.executeBatch()) {
          rows += Math.max(n, 0);
        }
      }
      if (rows == 0) {
        throw new SQLException("gruelbox wrote no outbox row in this transaction");
      }
    }

    void close() throws SQLException {
      for (PreparedStatement ps : batches.values()) {
        ps.close();
      }
    }
  }
}
