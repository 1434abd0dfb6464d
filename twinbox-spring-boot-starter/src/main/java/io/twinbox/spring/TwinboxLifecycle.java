package io.twinbox.spring;

import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a Twinbox component with the application context: created and started when the context
 * starts, closed gracefully when it stops (before the DataSource is closed). A stopped context
 * that starts again gets a fresh instance, as the components start only once. Thread-safe.
 *
 * @param <T> the component
 */
public abstract class TwinboxLifecycle<T extends AutoCloseable> implements SmartLifecycle {
  private final Supplier<T> factory;
  private volatile T current;

  protected TwinboxLifecycle(Supplier<T> factory) {
    this.factory = Objects.requireNonNull(factory, "factory cannot be null");
  }

  /** Starts the component. */
  protected abstract void start(T component);

  @Override
  public synchronized void start() {
    if (current == null) {
      T component = factory.get();
      start(component);
      current = component;
    }
  }

  @Override
  public synchronized void stop() {
    T component = current;
    current = null;
    if (component != null) {
      try {
        component.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop " + component, e);
      }
    }
  }

  @Override
  public boolean isRunning() {
    return current != null;
  }

  /** The running component, or {@code null} when stopped. */
  public T current() {
    return current;
  }
}
