package io.twinbox.spring;

import io.twinbox.Relay;
import java.util.function.Supplier;

/**
 * The relay as a lifecycle bean: started with the application context, closed gracefully (leases
 * released for an immediate hand-off) when it stops. Turn it off with {@code
 * twinbox.relay.enabled=false} to run the standalone relay instead.
 */
public class TwinboxRelay extends TwinboxLifecycle<Relay> {

  /** @param factory builds a new, unstarted relay for each start of the context */
  public TwinboxRelay(Supplier<Relay> factory) {
    super(factory);
  }

  @Override
  protected void start(Relay relay) {
    relay.start();
  }

  /** The running relay (its stats, partitions and config), or {@code null} when stopped. */
  public Relay relay() {
    return current();
  }
}
