package io.twinbox.testkit.cpu;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections are always in a transaction and do nothing: commit,
 * rollback and close return at once. With {@link NullInboxStore}, the consumer's database costs
 * nothing, so what remains is the library's own work per message.
 */
final class NullDatabase {
  private NullDatabase() {}

  /** What a method returning {@code type} returns when it does nothing. */
  private static Object nothing(Class<?> type) {
    if (type == boolean.class) {
      return false;
    }
    return type.isPrimitive() && type != void.class ? 0 : null;
  }

  static DataSource dataSource() {
    Connection connection = (Connection) Proxy.newProxyInstance(NullDatabase.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getAutoCommit", "isClosed", "isReadOnly" -> false;
          case "isValid" -> true;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "null connection";
          default -> nothing(method.getReturnType());
        });
    return (DataSource) Proxy.newProxyInstance(NullDatabase.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getConnection" -> connection;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "null data source";
          default -> null;
        });
  }
}
