package io.twinbox.faults.child;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * Row B2 of FAULTS.md, forced: the relay process halts (like {@code kill -9}: no shutdown hook, no
 * flush) at the exact moment between the broker's acknowledgements of a batch and the statement
 * that marks its rows {@code PUBLISHED}. Armed by a trigger file the nemesis creates; while it
 * exists, the next completion statement prepared on the relay's pool halts the JVM instead of
 * running. Every message of that batch is then on the broker, journaled as acked, and still
 * {@code PENDING} in the outbox: the next owner of the partition must publish it again (duplicate
 * deliveries, no duplicate effect, nothing lost).
 *
 * <p>The completion statement is recognised by its text ({@value #COMPLETION}), which both
 * dialects' MARK completion contain and no other relay statement does. Checking the trigger costs
 * one {@code stat} per statement prepared.
 */
final class HaltBeforeCompletion {
  static final String COMPLETION = "SET status = 'PUBLISHED'";
  /** Printed, flushed, just before the halt. */
  static final String HALTED = "RELAY-HALT-BEFORE-COMPLETION";
  /** The exit code of the halted process (as after SIGKILL). */
  static final int EXIT_CODE = 137;

  private HaltBeforeCompletion() {}

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
    InvocationHandler statements = (proxy, method, args) -> {
      if (method.getName().startsWith("prepare") && args != null && args.length > 0
          && args[0] instanceof String sql && sql.contains(COMPLETION) && Files.exists(trigger)) {
        System.out.println(HALTED);
        System.out.flush();
        Runtime.getRuntime().halt(EXIT_CODE);
      }
      return invoke(connection, method, args);
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
