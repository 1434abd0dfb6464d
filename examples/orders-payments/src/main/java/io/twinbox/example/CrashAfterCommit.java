package io.twinbox.example;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Chaos: a {@link DataSource} for a consumer whose {@code commit()} sometimes "crashes" the
 * consuming thread right <em>after</em> the database commit succeeded — before the consumer could
 * commit its Kafka offsets. It throws {@link SimulatedCrash}, an {@link Error} that no handler
 * catches: the consumer's thread dies, its Kafka client closes without committing, and the next
 * instance receives the whole batch again. Effects must not repeat: the inbox turns every one of
 * those messages into a duplicate.
 *
 * <p>Thread-safe.
 */
final class CrashAfterCommit implements DataSource {
  /** Thrown after a successful commit to kill the consumer's thread. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash() {
      super("simulated crash after the database commit, before the offset commit", null, false, false);
    }
  }

  private static boolean quiet;

  private final DataSource delegate;
  private final BooleanSupplier crashNow;
  private final AtomicLong crashes;

  /**
   * @param crashNow asked after each successful commit
   * @param crashes counts the crashes
   */
  CrashAfterCommit(DataSource delegate, BooleanSupplier crashNow, AtomicLong crashes) {
    this.delegate = delegate;
    this.crashNow = crashNow;
    this.crashes = crashes;
  }

  /**
   * Keeps the simulated crashes out of stderr: the JVM's default handler for uncaught exceptions
   * ignores {@link SimulatedCrash} and passes anything else on as before. Idempotent.
   */
  static synchronized void quietCrashes() {
    if (quiet) {
      return;
    }
    quiet = true;
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
      if (e instanceof SimulatedCrash) {
        return;
      }
      if (previous != null) {
        previous.uncaughtException(thread, e);
      } else {
        System.err.print("Exception in thread \"" + thread.getName() + "\" ");
        e.printStackTrace();
      }
    });
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return wrap(delegate.getConnection(username, password));
  }

  private Connection wrap(Connection real) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("commit") && crashNow.getAsBoolean()) {
            crashes.incrementAndGet();
            throw new SimulatedCrash();
          }
          return result;
        });
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
