package io.twinbox.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxConsumerSettings;
import io.twinbox.rabbitmq.internal.Connections;
import io.twinbox.rabbitmq.internal.RabbitSource;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.spi.MessageSource;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Builds an {@link InboxConsumer} of a RabbitMQ queue: each message's effect commits in the database
 * together with its inbox record, and only then is the delivery acknowledged ({@code basic.ack},
 * multiple, up to the last committed delivery). A crash anywhere causes a redelivery, which the inbox
 * turns into a skipped duplicate.
 *
 * <pre>{@code
 * InboxConsumer consumer = RabbitInboxConsumer.builder("amqp://localhost", "payment-service.order")
 *     .inbox(inbox, dataSource)
 *     .handler((connection, message) -> payments.apply(connection, message))
 *     .build();
 * consumer.start();
 * }</pre>
 *
 * <p>One thread per queue takes up to {@code batchSize} deliveries (waiting at most {@code
 * batchWait} for more after the first) and hands them, in delivery order, to the inbox in
 * transactions of up to {@code batchSize}. A failing message is retried with backoff inline and
 * parked in {@code twinbox_inbox_parked} after {@code maxAttempts}; it is then acknowledged, since
 * the parked row holds it. Messages that are not readable CloudEvents with a JSON payload, and
 * handlers throwing {@code UnprocessableMessageException}, are parked at once. A redelivered message
 * (redelivered flag, or {@code x-delivery-count} on a quorum queue) counts one attempt before its
 * handler runs, so a message that kills the process is parked after {@code maxAttempts} restarts; the
 * queue's {@code x-delivery-limit} and dead-letter exchange (see {@link RabbitTopology}) are the
 * broker's backstop. A lost connection is re-established after {@code reconnectBackoff}.
 *
 * <p>Per-aggregate order holds with one consumer per queue; several consumers on one queue, or
 * requeues, can reorder (see the module README).
 */
public final class RabbitInboxConsumer {
  private RabbitInboxConsumer() {}

  /** Starts a builder from an AMQP URI ({@code amqp://user:password@host:port/vhost}) and a queue. */
  public static Builder builder(String uri, String queue) {
    return new Builder(Connections.fromUri(uri), queue);
  }

  /** Starts a builder from the user's connection factory (copied) and a queue. */
  public static Builder builder(ConnectionFactory factory, String queue) {
    return new Builder(Connections.copyOf(factory), queue);
  }

  /** Configures an {@link InboxConsumer} of a RabbitMQ queue. Not thread-safe. */
  public static final class Builder extends InboxConsumer.Builder<Builder> {
    public static final Setting<Integer> PREFETCH = Setting.integer("prefetch").range(1, 65_535).defaultValue(250)
        .description("Unacknowledged deliveries the broker may push (basic.qos); at least batchSize, and more so"
            + " that the next batch arrives while a transaction runs.");
    public static final Setting<Duration> BATCH_WAIT = Setting.duration("batchWait")
        .range(Duration.ZERO, Duration.ofSeconds(1)).defaultValue(Duration.ofMillis(20))
        .description("After the first delivery, how long to wait for more to fill a batch.");
    public static final Setting<Duration> RECONNECT_BACKOFF = Setting.duration("reconnectBackoff")
        .range(Duration.ofMillis(10), Duration.ofMinutes(5)).defaultValue(Duration.ofSeconds(1))
        .description("Wait between reconnection attempts.");
    /** This consumer's settings: the shared ones ({@link InboxConsumerSettings}) and RabbitMQ's. */
    public static final Catalogue<Builder> SETTINGS = InboxConsumerSettings.<Builder>common("rabbitmq.consumer",
        "RabbitInboxConsumer.Builder", Builder::batchSize, Builder::retryPolicy)
        .add(PREFETCH, Builder::prefetch).add(BATCH_WAIT, Builder::batchWait)
        .add(RECONNECT_BACKOFF, Builder::reconnectBackoff)
        .rule((v, name) -> v.get(InboxConsumerSettings.BATCH_SIZE) <= v.get(PREFETCH) ? null
            : name.apply("batchSize") + " (" + v.get(InboxConsumerSettings.BATCH_SIZE) + ") must not exceed "
                + name.apply("prefetch") + " (" + v.get(PREFETCH) + "): a batch could never fill")
        .build();

    private final ConnectionFactory factory;
    private final String queue;
    private String connectionName;
    private int prefetch = PREFETCH.defaultValue();
    private Duration batchWait = BATCH_WAIT.defaultValue();
    private Duration reconnectBackoff = RECONNECT_BACKOFF.defaultValue();

    Builder(ConnectionFactory factory, String queue) {
      if (queue == null || queue.isBlank()) {
        throw new IllegalArgumentException("queue must not be blank");
      }
      this.factory = factory;
      this.queue = queue;
    }

    /** Unacknowledged deliveries the broker may push ({@code basic.qos}; {@link #PREFETCH}). */
    public Builder prefetch(int prefetch) {
      this.prefetch = PREFETCH.check(prefetch);
      return this;
    }

    /** After the first delivery, how long to wait for more to fill a batch ({@link #BATCH_WAIT}). */
    public Builder batchWait(Duration wait) {
      this.batchWait = BATCH_WAIT.check(wait);
      return this;
    }

    /** Wait between reconnection attempts ({@link #RECONNECT_BACKOFF}). */
    public Builder reconnectBackoff(Duration backoff) {
      this.reconnectBackoff = RECONNECT_BACKOFF.check(backoff);
      return this;
    }

    /** The connection name (and consumer tag) the broker shows. Default {@code twinbox-inbox-<consumer>}. */
    public Builder connectionName(String name) {
      this.connectionName = Objects.requireNonNull(name, "connectionName cannot be null");
      return this;
    }

    @Override
    protected MessageSource source(InboxConsumer.Shared shared) {
      SETTINGS.values(Map.of("batchSize", shared.batchSize(), "prefetch", prefetch)); // the catalogue's rule
      factory.setAutomaticRecoveryEnabled(false); // the source reconnects itself, with a clean buffer
      factory.setTopologyRecoveryEnabled(false);
      return new RabbitSource(factory, queue, connectionName != null ? connectionName : "twinbox-inbox-" + shared.consumer(),
          prefetch, shared.batchSize(), batchWait, reconnectBackoff);
    }
  }
}
