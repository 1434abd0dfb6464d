package io.twinbox.spring;

import io.twinbox.Retention;
import java.util.function.Supplier;

/**
 * {@link Retention} as a lifecycle bean, with {@code twinbox.retention.enabled=true}: scheduled
 * when the application context starts, stopped (a round under way ends after its current
 * statement and releases the lock) when it stops. Every instance of the application schedules it;
 * the database lock lets one round run at a time.
 */
public class TwinboxRetention extends TwinboxLifecycle<Retention> {

  /** @param factory builds a new, unstarted retention job for each start of the context */
  public TwinboxRetention(Supplier<Retention> factory) {
    super(factory);
  }

  @Override
  protected void start(Retention retention) {
    retention.start();
  }

  /** The running retention job, or {@code null} when stopped. */
  public Retention retention() {
    return current();
  }
}
