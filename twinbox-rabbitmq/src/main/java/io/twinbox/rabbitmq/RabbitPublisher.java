package io.twinbox.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.rabbitmq.internal.AmqpCloudEvents;
import io.twinbox.rabbitmq.internal.ConfirmLink;
import io.twinbox.rabbitmq.internal.ConfirmTracker;
import io.twinbox.rabbitmq.internal.Connections;
import io.twinbox.rabbitmq.internal.ExchangeCheck;
import io.twinbox.rabbitmq.internal.LinkHolder;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spi.WireAttributes;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox messages to RabbitMQ as CloudEvents 1.0 (AMQP binding, binary content mode) with
 * publisher confirms, {@code mandatory} and persistent delivery.
 *
 * <pre>{@code
 * Transport rabbit = RabbitPublisher.builder("amqp://relay@localhost:5672/%2f").build();
 * Transport custom = RabbitPublisher.builder(connectionFactory)   // e.g. with TLS and a password
 *     .router(RabbitRouter.fixed("events"))
 *     .build();
 * }</pre>
 *
 * <p><b>Wire format.</b> Body: the payload's UTF-8 bytes. Properties: {@code content-type:
 * application/json}, {@code delivery-mode: 2} (persistent), {@code message-id} = the message id,
 * {@code timestamp} = occurred-at (seconds). Headers (AMQP application properties):
 * {@code cloudEvents:specversion}, {@code cloudEvents:id}, {@code cloudEvents:source},
 * {@code cloudEvents:type}, {@code cloudEvents:subject} (aggregate id), {@code cloudEvents:time}
 * (RFC 3339, UTC), and the extensions {@code cloudEvents:aggregatetype}, {@code cloudEvents:sequence}
 * (decimal text), {@code cloudEvents:partitionkey}, {@code cloudEvents:dataversion} (a long),
 * {@code cloudEvents:correlationid}, {@code cloudEvents:causationid}, {@code cloudEvents:traceparent};
 * absent values are left out. User headers follow under their own names.
 *
 * <p><b>Outcomes.</b> {@link #send} never throws and its future never completes exceptionally.
 * {@code ACKED} only on {@code basic.ack} of a message that was not returned. {@code REJECTED}: a
 * {@code basic.return} (no queue bound for the routing key: {@code mandatory}), a missing exchange,
 * a message larger than {@code maxMessageBytes}, a router or encoding failure. {@code RETRY}: a
 * {@code basic.nack}. {@code UNAVAILABLE}: the broker cannot be reached, the channel or connection
 * closed before the confirm, or no confirm within {@code confirmTimeout} (ambiguous: the relay
 * republishes and the consumer's inbox absorbs the duplicate — RabbitMQ has no broker-side
 * deduplication).
 *
 * <p>One connection with one confirm channel serves all relay workers; the client's automatic
 * recovery is off and a lost connection is replaced on the next send. Futures complete on the
 * client's connection thread: dependent stages must not block. Thread-safe.
 */
public final class RabbitPublisher implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(RabbitPublisher.class);

  private final RabbitPublisherConfig config;
  private final RabbitRouter router;
  private final RabbitRouter deadLetterRouter;
  private final LinkHolder links;
  private final ExchangeCheck exchanges;
  private final ConfirmTracker.Counters counters = new ConfirmTracker.Counters();
  private volatile ConfirmLink lastLink;

  RabbitPublisher(ConnectionFactory factory, RabbitRouter router, RabbitRouter deadLetterRouter,
      RabbitPublisherConfig config) {
    this.config = config;
    this.router = router;
    this.deadLetterRouter = deadLetterRouter;
    this.links = new LinkHolder(factory, config.connectionName(), config.reconnectBackoff(), counters,
        System::nanoTime);
    this.exchanges = new ExchangeCheck(config.exchangeCheckTtl().toNanos(), System::nanoTime);
  }

  /** Starts a builder from an AMQP URI, e.g. {@code amqp://user:password@host:5672/vhost}. */
  public static Builder builder(String uri) {
    return new Builder(Connections.fromUri(uri));
  }

  /**
   * Starts a builder from the user's connection factory (TLS, credentials, timeouts). The factory is
   * copied; Twinbox turns automatic recovery off on the copy.
   */
  public static Builder builder(ConnectionFactory factory) {
    return new Builder(Connections.copyOf(factory));
  }

  /** Returns {@code rabbitmq}. */
  @Override
  public String name() {
    return "rabbitmq";
  }

  /** Publishes one message; see the class documentation for the outcomes. */
  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
    return send(m, source -> WireAttributes.of(m, source), router);
  }

  /**
   * Dead letters on this publisher's connection, with the same outcomes (an exchange that does not
   * exist, or no queue bound: {@code REJECTED}, kept pending), as the original event's message
   * (same message id, attributes, body) plus the headers {@code cloudEvents:dlqreason}, {@code
   * cloudEvents:dlqattempts} (a long), {@code cloudEvents:dlqfirstfailure} and {@code
   * cloudEvents:dlqlastfailure}; destination: the builder's {@link Builder#deadLetterRouter
   * dead-letter router}, by default the event's exchange followed by {@code .dlq}, same routing key.
   */
  @Override
  public Optional<DeadLetterTransport> deadLetters() {
    return Optional.of(new DeadLetterTransport() {
      @Override
      public String name() {
        return "rabbitmq dead letters (" + deadLetterRouter + ")";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
        return RabbitPublisher.this.send(letter.message(), source -> WireAttributes.of(letter, source),
            deadLetterRouter);
      }

      /** A parked inbox message, routed as its stand-in by the dead-letter router, with its original id. */
      @Override
      public CompletableFuture<PublishOutcome> forward(ParkedLetter letter) {
        return RabbitPublisher.this.send(letter.standIn(), source -> WireAttributes.of(letter, source),
            deadLetterRouter);
      }
    });
  }

  private CompletableFuture<PublishOutcome> send(OutboxMessage m,
      java.util.function.Function<URI, java.util.Map<String, Object>> attributes, RabbitRouter router) {
    if (links.isClosed()) {
      return done(PublishOutcome.unavailable("the RabbitMQ publisher is closed"));
    }
    URI source = WireAttributes.sourceOrNull(m.source());
    if (source == null) { // the relay's configuration, not this event: hold everything back, fail nothing
      return done(PublishOutcome.unavailable(WireAttributes.INVALID_SOURCE));
    }
    RabbitDestination to;
    AmqpCloudEvents.Encoded encoded;
    try {
      to = router.route(m);
      if (to == null) {
        throw new IllegalArgumentException("the router returned no destination");
      }
      encoded = AmqpCloudEvents.encode(m, attributes.apply(source));
    } catch (RuntimeException e) {
      return done(PublishOutcome.rejected("cannot route or encode the event: " + ConfirmLink.describe(e)));
    }
    int size = encoded.body().length + headerBytes(encoded);
    if (size > config.maxMessageBytes()) {
      return done(PublishOutcome.rejected("message of " + size + " bytes exceeds maxMessageBytes "
          + config.maxMessageBytes()));
    }
    ConfirmLink link;
    try {
      link = links.acquire();
      if (link != lastLink) {
        exchanges.forgetAll();
        lastLink = link;
      }
      if (!exchanges.exists(link.connection(), to.exchange())) {
        return done(PublishOutcome.rejected("exchange '" + to.exchange() + "' does not exist in virtual host '"
            + config.virtualHost() + "'"));
      }
    } catch (IOException | RuntimeException e) {
      return done(PublishOutcome.unavailable(ConfirmLink.describe(e)));
    }
    return link.publish(to, encoded, m.id().toString())
        .completeOnTimeout(PublishOutcome.unavailable("no publisher confirm within " + config.confirmTimeout()),
            config.confirmTimeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  private static int headerBytes(AmqpCloudEvents.Encoded e) {
    int n = 0;
    for (var h : e.properties().getHeaders().entrySet()) {
      n += h.getKey().length() + String.valueOf(h.getValue()).length() + 8;
    }
    return n;
  }

  /**
   * Closes the connection; publishes still waiting for a confirm complete as {@code UNAVAILABLE},
   * as do later sends. Idempotent.
   */
  @Override
  public void close() {
    links.close();
    LOG.info("RabbitMQ publisher closed: {}", stats());
  }

  /** The effective settings; contains no secret. */
  public RabbitPublisherConfig config() {
    return config;
  }

  /** Counters since the publisher was built. */
  public Stats stats() {
    return new Stats(counters.acked().get(), counters.returned().get(), counters.nacked().get(), links.opened());
  }

  /**
   * Publisher counters.
   *
   * @param acked confirmed and routed
   * @param returned returned as unroutable ({@code REJECTED})
   * @param nacked refused by the broker ({@code RETRY})
   * @param connections connections opened (more than one means reconnections)
   */
  public record Stats(long acked, long returned, long nacked, long connections) {}

  private static CompletableFuture<PublishOutcome> done(PublishOutcome o) {
    return CompletableFuture.completedFuture(o);
  }

  /**
   * Configures a {@link RabbitPublisher}. Not thread-safe; use it from one thread, then discard it.
   *
   * <p>Forced: automatic connection and topology recovery off (see the class documentation).
   * Defaults and limits: {@link RabbitPublisherSettings}.
   */
  public static final class Builder {
    private final ConnectionFactory factory;
    private RabbitRouter router = RabbitRouter.byAggregateType();
    private RabbitRouter deadLetterRouter;
    private String connectionName = RabbitPublisherSettings.CONNECTION_NAME.defaultValue();
    private Duration confirmTimeout = RabbitPublisherSettings.CONFIRM_TIMEOUT.defaultValue();
    private int maxMessageBytes = RabbitPublisherSettings.MAX_MESSAGE_BYTES.defaultValue();
    private Duration reconnectBackoff = RabbitPublisherSettings.RECONNECT_BACKOFF.defaultValue();
    private Duration exchangeCheckTtl = RabbitPublisherSettings.EXCHANGE_CHECK_TTL.defaultValue();

    Builder(ConnectionFactory factory) {
      this.factory = factory;
    }

    /** Chooses each message's exchange and routing key. Default {@link RabbitRouter#byAggregateType()}. */
    public Builder router(RabbitRouter router) {
      this.router = Objects.requireNonNull(router, "router cannot be null");
      return this;
    }

    /**
     * Chooses each dead letter's exchange and routing key ({@link RabbitPublisher#deadLetters()}).
     * Default {@link RabbitRouter#deadLetters}{@code (router)}: the event's exchange + {@code .dlq}.
     */
    public Builder deadLetterRouter(RabbitRouter router) {
      this.deadLetterRouter = Objects.requireNonNull(router, "deadLetterRouter cannot be null");
      return this;
    }

    /** The connection name the broker shows ({@link RabbitPublisherSettings#CONNECTION_NAME}). */
    public Builder connectionName(String name) {
      this.connectionName = RabbitPublisherSettings.CONNECTION_NAME.check(name);
      return this;
    }

    /** Longest wait for a publisher confirm before {@code UNAVAILABLE} ({@link RabbitPublisherSettings#CONFIRM_TIMEOUT}). */
    public Builder confirmTimeout(Duration timeout) {
      this.confirmTimeout = RabbitPublisherSettings.CONFIRM_TIMEOUT.check(timeout);
      return this;
    }

    /**
     * Larger messages (body plus headers) are {@code REJECTED} without being sent: a message over the
     * broker's {@code max_message_size} would close the channel and fail its neighbours ({@link
     * RabbitPublisherSettings#MAX_MESSAGE_BYTES}); keep it at or below the broker's limit.
     */
    public Builder maxMessageBytes(int bytes) {
      this.maxMessageBytes = RabbitPublisherSettings.MAX_MESSAGE_BYTES.check(bytes);
      return this;
    }

    /** After a failed connect, fail fast this long ({@link RabbitPublisherSettings#RECONNECT_BACKOFF}). */
    public Builder reconnectBackoff(Duration backoff) {
      this.reconnectBackoff = RabbitPublisherSettings.RECONNECT_BACKOFF.check(backoff);
      return this;
    }

    /** How long an existing exchange is trusted before it is checked again ({@link RabbitPublisherSettings#EXCHANGE_CHECK_TTL}). */
    public Builder exchangeCheckTtl(Duration ttl) {
      this.exchangeCheckTtl = RabbitPublisherSettings.EXCHANGE_CHECK_TTL.check(ttl);
      return this;
    }

    /** Validates the settings. Connects lazily, on the first send: no broker needs to be up. */
    public RabbitPublisher build() {
      factory.setAutomaticRecoveryEnabled(false);
      factory.setTopologyRecoveryEnabled(false);
      String routerName = router.toString().startsWith("RabbitRouter.") ? router.toString() : router.getClass().getName();
      RabbitPublisherConfig config = new RabbitPublisherConfig(factory.getHost(), factory.getPort(),
          factory.getVirtualHost(), factory.getUsername(), connectionName, routerName, confirmTimeout,
          maxMessageBytes, reconnectBackoff, exchangeCheckTtl);
      LOG.info("RabbitMQ publisher ready: {}", config);
      return new RabbitPublisher(Connections.copyOf(factory), router,
          deadLetterRouter != null ? deadLetterRouter : RabbitRouter.deadLetters(router), config);
    }
  }
}
