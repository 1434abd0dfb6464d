package io.twinbox.internal.memory;

import io.twinbox.StoreException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Transactions for the in-memory store: a {@link DataSource} whose connections run no SQL but
 * carry a transaction — what the store does on a connection is staged and applied at its commit,
 * dropped at its rollback (or at close without commit), and row locks taken in it are held until
 * then, so a concurrent writer of the same aggregate or inbox id waits as it would on a database.
 *
 * <p>One monitor ({@code this}) guards all of the store's state; a lock wait releases it. A wait
 * longer than the lock timeout (default {@link #LOCK_TIMEOUT_MS} ms) fails like a database deadlock
 * (SQLSTATE 40P01).
 */
public final class MemoryTransactions implements DataSource {
  static final long LOCK_TIMEOUT_MS = 10_000;
  private volatile long lockTimeoutMillis = LOCK_TIMEOUT_MS;

  /** What one transaction staged and locked. Guarded by the owning {@link MemoryTransactions}. */
  public static final class Tx {
    private final List<Runnable> onCommit = new ArrayList<>();
    private final List<Runnable> afterCommit = new ArrayList<>();
    private final List<Object> locks = new ArrayList<>();
    private final Map<Object, Object> staged = new HashMap<>();

    /** Runs {@code action} under the store's monitor when this transaction commits. */
    public void onCommit(Runnable action) {
      onCommit.add(action);
    }

    /** Runs {@code action} after the commit, outside the store's monitor (callbacks). */
    public void afterCommit(Runnable action) {
      afterCommit.add(action);
    }

    /** This transaction's own staged value under {@code key}, visible only to it until commit. */
    @SuppressWarnings("unchecked")
    public <T> T staged(Object key, Function<Object, T> create) {
      return (T) staged.computeIfAbsent(key, create);
    }
  }

  private final Map<Object, Tx> lockOwners = new HashMap<>();

  /** How long a transaction waits for a row lock before it fails as a deadlock. */
  public void lockTimeout(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("lockTimeout must be >= 0 ms, was " + millis);
    }
    lockTimeoutMillis = millis;
  }

  /** {@link #inTransaction} for work without a result. */
  public void run(Connection c, java.util.function.Consumer<Tx> work) {
    inTransaction(c, tx -> {
      work.accept(tx);
      return null;
    });
  }

  /** Runs {@code work} under the store's monitor, outside any transaction. */
  public void sync(Runnable work) {
    synchronized (this) {
      work.run();
    }
  }

  /** Runs {@code work} in the transaction of {@code c} (a statement of its own when auto-commit is on). */
  public <T> T inTransaction(Connection c, Function<Tx, T> work) {
    Handler h = handlerOf(c);
    if (h.closed) {
      throw new StoreException("the connection is closed", new SQLException("connection closed", "08003"));
    }
    if (!h.autoCommit) {
      synchronized (this) {
        return work.apply(h.tx);
      }
    }
    Tx tx = new Tx();
    T result;
    try {
      synchronized (this) {
        result = work.apply(tx);
      }
    } catch (RuntimeException e) {
      end(tx, false);
      throw e;
    }
    end(tx, true);
    return result;
  }

  /**
   * Takes the row lock {@code key} for {@code tx}, waiting while another transaction holds it.
   * Must be called under this monitor.
   */
  public void lock(Tx tx, Object key) {
    long timeout = lockTimeoutMillis;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
    Tx owner;
    while ((owner = lockOwners.get(key)) != null && owner != tx) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new StoreException("lock wait timed out after " + timeout + " ms (a deadlock?); retry the"
            + " transaction", new SQLTransactionRollbackException("deadlock detected", "40P01"));
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for a row lock",
            new SQLException("interrupted", "57014"));
      }
    }
    if (owner == null) {
      lockOwners.put(key, tx);
      tx.locks.add(key);
    }
  }

  private void end(Tx tx, boolean commit) {
    List<Runnable> callbacks;
    synchronized (this) {
      if (commit) {
        tx.onCommit.forEach(Runnable::run);
      }
      tx.locks.forEach(lockOwners::remove);
      notifyAll();
      callbacks = commit ? List.copyOf(tx.afterCommit) : List.of();
    }
    callbacks.forEach(Runnable::run);
  }

  private Handler handlerOf(Connection c) {
    if (c != null && Proxy.isProxyClass(c.getClass()) && Proxy.getInvocationHandler(c) instanceof Handler h
        && h.owner() == this) {
      return h;
    }
    throw new IllegalArgumentException("the connection is not one of this in-memory store's dataSource()");
  }

  @Override
  public Connection getConnection() {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        new Handler());
  }

  @Override
  public Connection getConnection(String username, String password) {
    return getConnection();
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no java.util.logging here");
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException("not a wrapper of " + iface.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return iface.isInstance(this);
  }

  /** One connection: its auto-commit flag and its current transaction. */
  private final class Handler implements InvocationHandler {
    private volatile boolean autoCommit = true;
    private volatile boolean closed;
    private volatile Tx tx = new Tx();

    MemoryTransactions owner() {
      return MemoryTransactions.this;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws SQLException {
      switch (method.getName()) {
        case "getAutoCommit":
          return autoCommit;
        case "setAutoCommit":
          boolean on = (Boolean) args[0];
          if (on && !autoCommit) {
            finish(true); // JDBC: switching auto-commit on commits the open transaction
          }
          autoCommit = on;
          return null;
        case "commit":
        case "rollback":
          if (autoCommit) {
            throw new SQLException("cannot " + method.getName() + " with auto-commit on", "25000");
          }
          finish(method.getName().equals("commit"));
          return null;
        case "close":
          if (!closed) {
            finish(false);
            closed = true;
          }
          return null;
        case "isClosed":
          return closed;
        case "isValid":
          return !closed;
        case "isWrapperFor":
          return ((Class<?>) args[0]).isInstance(proxy);
        case "unwrap":
          if (((Class<?>) args[0]).isInstance(proxy)) {
            return proxy;
          }
          throw new SQLException("not a wrapper of " + ((Class<?>) args[0]).getName());
        case "getTransactionIsolation":
          return Connection.TRANSACTION_READ_COMMITTED;
        case "isReadOnly":
          return false;
        case "getWarnings", "getSchema", "getCatalog", "getClientInfo":
          return null;
        case "setTransactionIsolation", "setReadOnly", "clearWarnings", "setSchema", "setCatalog",
            "setNetworkTimeout", "setHoldability", "setClientInfo":
          return null;
        case "getNetworkTimeout", "getHoldability":
          return 0;
        case "hashCode":
          return System.identityHashCode(proxy);
        case "equals":
          return proxy == args[0];
        case "toString":
          return "InMemoryStore connection@" + Integer.toHexString(System.identityHashCode(proxy))
              + (closed ? " (closed)" : "");
        default:
          throw new SQLFeatureNotSupportedException("the in-memory store runs no SQL (Connection." + method.getName()
              + "); code that runs its own SQL needs a real database (twinbox-jdbc)", "0A000");
      }
    }

    private void finish(boolean commit) {
      Tx done = tx;
      tx = new Tx();
      end(done, commit);
    }
  }
}
