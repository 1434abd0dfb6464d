package io.twinbox.faults.child;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * Row D2 of FAULTS.md, forced: the consumer process halts (like {@code kill -9}) at the exact
 * moment between the commit of a transaction that applied effects and the broker acknowledgement
 * that follows it. Armed by a trigger file the nemesis creates; while it exists, the first commit
 * that returns on a connection which wrote an effect ({@value #EFFECT}) halts the JVM. Those
 * messages are applied and recorded in the inbox, and unacknowledged on the broker: it delivers
 * them again, and the inbox must skip every one (duplicate deliveries, no duplicate effect).
 */
final class HaltAfterCommit {
  static final String EFFECT = "INSERT INTO effect";
  /** Printed, flushed, just before the halt. */
  static final String HALTED = "CONSUMER-HALT-AFTER-COMMIT";
  /** The exit code of the halted process (as after SIGKILL). */
  static final int EXIT_CODE = 137;

  private HaltAfterCommit() {}

  /** {@code pool} with the halt armed whenever {@code trigger} exists. */
  static DataSource wrap(DataSource pool, Path trigger) {
    InvocationHandler connections = (proxy, method, args) -> {
      Object result = invoke(pool, method, args);
      return result instanceof Connection c ? connection(c, trigger) : result;
    };
    return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, connections);
  }

  private static Connection connection(Connection connection, Path trigger) {
    AtomicBoolean wroteEffect = new AtomicBoolean();
    InvocationHandler statements = (proxy, method, args) -> {
      String name = method.getName();
      if (name.startsWith("prepare") && args != null && args.length > 0 && args[0] instanceof String sql
          && sql.contains(EFFECT)) {
        wroteEffect.set(true);
      }
      Object result = invoke(connection, method, args);
      if (name.equals("commit") && wroteEffect.getAndSet(false) && Files.exists(trigger)) {
        System.out.println(HALTED);
        System.out.flush();
        Runtime.getRuntime().halt(EXIT_CODE);
      } else if (name.equals("rollback") || name.equals("close")) {
        wroteEffect.set(false);
      }
      return result;
    };
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class}, statements);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
