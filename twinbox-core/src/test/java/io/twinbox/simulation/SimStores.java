package io.twinbox.simulation;

import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;

/**
 * The in-memory store as one process sees it: every statement a fault point of that process
 * ({@link SimWorld#call}). Methods that only describe the store (no statement on a database) pass
 * straight through.
 */
final class SimStores {
  private SimStores() {}

  private static final Set<String> NO_STATEMENT = Set.of("partitionCount", "onWrite", "supportsDeadLetters",
      "supportsOrdering", "supportsReplay", "forwardsParked", "isTransient", "inboxAdmin", "toString", "hashCode",
      "equals");

  static OutboxStore outbox(SimWorld world, SimProcess process, OutboxStore store) {
    return proxy(OutboxStore.class, world, process, store, null);
  }

  /** @param attemptRefused told of each refused {@code recordAttempt}, by message id */
  static InboxStore inbox(SimWorld world, SimProcess process, InboxStore store,
      java.util.function.Consumer<String> attemptRefused) {
    return proxy(InboxStore.class, world, process, store, attemptRefused);
  }

  private static <T> T proxy(Class<T> type, SimWorld world, SimProcess process, T target,
      java.util.function.Consumer<String> attemptRefused) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
      if (NO_STATEMENT.contains(method.getName())) {
        return invoke(method, target, args);
      }
      try {
        return world.call(process, method.getName(), () -> invoke(method, target, args));
      } catch (RuntimeException e) {
        if (attemptRefused != null && method.getName().equals("recordAttempt")) {
          attemptRefused.accept((String) args[1]);
        } else if (attemptRefused != null && method.getName().equals("recordAttempts")) {
          ((java.util.List<?>) args[1]).forEach(id -> attemptRefused.accept((String) id));
        }
        throw e;
      }
    }));
  }

  private static Object invoke(Method method, Object target, Object[] args) throws Exception {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw (Error) cause;
    }
  }
}
