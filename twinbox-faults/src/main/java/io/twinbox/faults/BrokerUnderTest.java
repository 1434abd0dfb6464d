package io.twinbox.faults;

import java.time.Duration;
import java.util.Set;

/**
 * A broker a fault run publishes through: where the relays and consumers connect, how the tap reads
 * everything back, how a poison record is injected, and which faults can be played on it. The
 * brokers of the fault runs are their own (Kafka, RabbitMQ and NATS alike), so they may be killed;
 * a shared server of the machine never is (the defaults below refuse).
 */
public interface BrokerUnderTest extends AutoCloseable {

  /** {@code kafka}, {@code rabbitmq}, {@code nats}. */
  String name();

  /** The faults this broker supports. */
  Set<FaultKind> supported();

  /** A fresh destination (topic, exchange and queues) for one run. */
  Destination create(String name);

  /** kill -9 of the broker; a shared server of the machine (the default) is never killed. */
  default void kill() {
    throw new UnsupportedOperationException("the shared " + name() + " server is never killed");
  }

  /** Restarts a killed broker; a shared server of the machine (the default) is never restarted. */
  default void restart() {
    throw new UnsupportedOperationException("the shared " + name() + " server is never restarted");
  }

  /** Whether the broker runs; a shared server of the machine (the default) always does. */
  default boolean isRunning() {
    return true;
  }

  @Override
  void close();

  /** One run's destination. */
  interface Destination extends AutoCloseable {
    /** The relay child's transport argument; {@code linkPort} is the relay↔broker fault proxy. */
    String relaySpec(int linkPort);

    /** The consumer child's transport argument. */
    String consumerSpec();

    /** Host and port the relay↔broker fault proxy forwards to; null when there is no such link. */
    String linkHost();

    int linkPort();

    /**
     * Where the relay↔broker fault proxy must listen: 0 (the default) for any free port, or the
     * port a broker advertises to clients that bootstrap through the proxy (Kafka's {@code LINK}
     * listener), so that their later connections go through it as well.
     */
    default int linkProxyPort() {
      return 0;
    }

    /** Every record published, read after the drain. */
    Tap.Read readAll(Duration timeout);

    /** Publishes a record that is not a CloudEvent. */
    void injectPoison(int salt);

    /**
     * C5: the broker refuses messages larger than {@code bytes} on this destination from now on
     * (a limit below the library's own). Brokers where the row is not played refuse the call.
     */
    default void limitMessageBytes(int bytes) {
      throw new UnsupportedOperationException("no broker-side message limit on this broker's destinations");
    }

    /** Undoes {@link #limitMessageBytes}: the broker's default limit again. Idempotent. */
    default void restoreMessageBytes() {
      throw new UnsupportedOperationException("no broker-side message limit on this broker's destinations");
    }

    @Override
    void close();
  }
}
