package io.twinbox.example;

import io.twinbox.Relay;
import io.twinbox.spi.Transport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A service's relay that can be restarted, as a rolling deploy restarts it: {@link #restart()}
 * closes the running relay gracefully (in-flight waves finish, leases are released) and starts a
 * fresh one with a fresh transport. Counts what all instances published.
 *
 * <p>Thread-safe.
 */
final class RestartableRelay implements AutoCloseable {
  private final Supplier<Transport> transports;
  private final Function<Transport, Relay> relays;
  private Relay relay;
  private Transport transport;
  private long publishedBefore;
  private int restarts;
  private boolean closed;

  /**
   * @param transports makes a new transport for each instance (closed with it)
   * @param relays makes a relay over a transport
   */
  RestartableRelay(Supplier<Transport> transports, Function<Transport, Relay> relays) {
    this.transports = transports;
    this.relays = relays;
  }

  synchronized void start() {
    if (closed) {
      throw new IllegalStateException("relay closed");
    }
    transport = transports.get();
    relay = relays.apply(transport);
    relay.start();
  }

  /** Graceful restart: close the current relay and its transport, then start a new pair. */
  synchronized void restart() {
    if (closed) {
      return;
    }
    stop();
    restarts++;
    start();
  }

  /** Messages published (acknowledged and completed) by every instance so far. */
  synchronized long published() {
    return publishedBefore + (relay == null ? 0 : relay.stats().published());
  }

  synchronized int restarts() {
    return restarts;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      stop();
    }
  }

  private void stop() {
    if (relay != null) {
      relay.close();
      publishedBefore += relay.stats().published();
      relay = null;
    }
    if (transport != null) {
      transport.close();
      transport = null;
    }
  }
}
