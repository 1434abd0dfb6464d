package io.twinbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.twinbox.nats.internal.ConnectionHolder;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.nats.internal.NatsConnections;
import io.twinbox.nats.internal.NatsOutcomes;
import io.twinbox.nats.internal.Subjects;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox messages to NATS JetStream as CloudEvents 1.0 (NATS binding, binary content
 * mode), with {@code Nats-Msg-Id} = the message id, and waits for the stream's publish ack.
 *
 * <pre>{@code
 * Transport nats = NatsPublisher.builder("nats://localhost:4222").build();
 * Transport custom = NatsPublisher.builder(connection)         // the user's connection, e.g. with creds
 *     .subjectRouter(m -> "orders." + m.type())
 *     .build();
 * }</pre>
 *
 * <p><b>Deduplication.</b> JetStream drops a publish whose {@code Nats-Msg-Id} it has stored within
 * the stream's duplicate window (server default 2 minutes) and acks it with {@code duplicate=true}:
 * a republish after a relay crash between ack and mark, or after an ambiguous timeout, reaches no
 * consumer. Such acks are {@code ACKED} and counted in {@link Stats#duplicates()}. A republish after
 * the window is stored again; the consumer's inbox absorbs it.
 *
 * <p><b>Wire format.</b> Body: the payload's UTF-8 bytes. Headers: {@code Nats-Msg-Id},
 * {@code ce-specversion}, {@code ce-id}, {@code ce-source}, {@code ce-type},
 * {@code ce-datacontenttype: application/json}, {@code ce-subject} (aggregate id), {@code ce-time}
 * (RFC 3339, UTC), and the extensions {@code ce-aggregatetype}, {@code ce-sequence},
 * {@code ce-partitionkey}, {@code ce-dataversion}, {@code ce-correlationid}, {@code ce-causationid},
 * {@code ce-traceparent}; values percent-encoded as the binding requires. User headers follow under
 * their own names, values percent-encoded the same way.
 *
 * <p><b>Outcomes.</b> {@link #send} never throws and its future never completes exceptionally; see
 * the module README for the table (no stream and too large are {@code REJECTED}; timeouts and lost
 * connections {@code UNAVAILABLE}). Futures complete on the NATS client's threads: dependent stages
 * must not block. Thread-safe; one instance serves all relay workers.
 */
public final class NatsPublisher implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(NatsPublisher.class);

  private final ConnectionHolder connection;
  private volatile JetStream jetStream;
  private final SubjectRouter router;
  private final NatsPublisherConfig config;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private volatile boolean closed;

  private NatsPublisher(ConnectionHolder connection, SubjectRouter router, NatsPublisherConfig config) {
    this.connection = connection;
    this.router = router;
    this.config = config;
  }

  /** The JetStream context, connecting first if this publisher owns a connection not yet opened. */
  private JetStream jetStream() throws IOException {
    JetStream js = jetStream;
    if (js == null) {
      js = connection.acquire().jetStream(JetStreamOptions.builder().requestTimeout(config.publishTimeout()).build());
      jetStream = js;
    }
    return js;
  }

  /**
   * Starts a builder for a connection to {@code url} (e.g. {@code nats://localhost:4222}) that the
   * publisher opens on its first send and owns; sends fail as {@code UNAVAILABLE} until it connects.
   */
  public static Builder builder(String url) {
    return new Builder(null, url);
  }

  /** Starts a builder on the user's connection; {@link #close()} leaves it open. */
  public static Builder builder(Connection connection) {
    return new Builder(Objects.requireNonNull(connection, "connection cannot be null"), null);
  }

  /** Returns {@code nats}. */
  @Override
  public String name() {
    return "nats";
  }

  /** Publishes one message; see the class documentation for the outcomes. */
  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
    Connection c = connection.currentOrNull();
    if (closed || (c != null && c.getStatus() == Connection.Status.CLOSED)) {
      return done(PublishOutcome.unavailable("the NATS publisher or its connection is closed"));
    }
    URI source;
    try {
      source = NatsCloudEvents.source(m.source());
    } catch (IllegalArgumentException e) {
      return done(PublishOutcome.unavailable(
          "the relay's CloudEvents source is not a URI-reference; fix it in Relay.Builder.source"));
    }
    String subject;
    Headers headers;
    try {
      subject = Subjects.validate(router.subjectFor(m));
      headers = NatsCloudEvents.headers(m, source);
    } catch (RuntimeException e) {
      return done(PublishOutcome.rejected("cannot route or encode the event: " + e.getClass().getSimpleName() + ": "
          + e.getMessage()));
    }
    PublishOptions options = PublishOptions.builder().messageId(m.id().toString()).build();
    CompletableFuture<PublishAck> ack;
    try {
      ack = jetStream().publishAsync(subject, headers, m.payload().getBytes(StandardCharsets.UTF_8), options);
    } catch (IOException | RuntimeException e) {
      return done(NatsOutcomes.classify(e, subject));
    }
    return ack.orTimeout(config.publishTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((a, e) -> e == null ? acked(a, m) : NatsOutcomes.classify(e, subject));
  }

  private PublishOutcome acked(PublishAck a, OutboxMessage m) {
    acked.incrementAndGet();
    if (a.isDuplicate()) {
      duplicates.incrementAndGet();
      LOG.debug("JetStream dropped a republish of {} as a duplicate (stream {}, seq {})", m.id(), a.getStream(),
          a.getSeqno());
    }
    return PublishOutcome.acked();
  }

  /** Stops publishing; closes the connection if this publisher created it. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    connection.close(); // only if this publisher opened it
    LOG.info("NATS publisher closed: {}", stats());
  }

  /** The effective settings; contains no secret. */
  public NatsPublisherConfig config() {
    return config;
  }

  /** Counters since the publisher was built. */
  public Stats stats() {
    return new Stats(acked.get(), duplicates.get());
  }

  /**
   * Publisher counters.
   *
   * @param acked publish acks received (duplicates included)
   * @param duplicates acks with {@code duplicate=true}: republishes JetStream dropped
   */
  public record Stats(long acked, long duplicates) {}

  private static CompletableFuture<PublishOutcome> done(PublishOutcome o) {
    return CompletableFuture.completedFuture(o);
  }

  /** Configures a {@link NatsPublisher}. Not thread-safe; use it from one thread, then discard it. */
  public static final class Builder {
    private final Connection connection;
    private final String url;
    private SubjectRouter router = SubjectRouter.byAggregateType();
    private Duration publishTimeout = Duration.ofSeconds(10);
    private String connectionName = "twinbox-relay";

    Builder(Connection connection, String url) {
      this.connection = connection;
      this.url = url == null ? null : url;
      if (connection == null && (url == null || url.isBlank())) {
        throw new IllegalArgumentException("url must not be blank");
      }
    }

    /** Chooses each message's subject. Default {@link SubjectRouter#byAggregateType()}. */
    public Builder subjectRouter(SubjectRouter router) {
      this.router = Objects.requireNonNull(router, "subjectRouter cannot be null");
      return this;
    }

    /** Longest wait for a publish ack before {@code UNAVAILABLE}. Default 10 s; 100 ms – 5 min. */
    public Builder publishTimeout(Duration timeout) {
      this.publishTimeout = NatsConnections.within("publishTimeout", timeout, Duration.ofMillis(100),
          Duration.ofMinutes(5));
      return this;
    }

    /** The connection name the server shows, for a connection this builder creates. Default {@code twinbox-relay}. */
    public Builder connectionName(String name) {
      this.connectionName = Objects.requireNonNull(name, "connectionName cannot be null");
      return this;
    }

    /**
     * Validates the settings. With a URL, nothing connects yet: the first send does, and the client
     * then reconnects by itself forever after a loss.
     */
    public NatsPublisher build() {
      ConnectionHolder c = connection != null ? ConnectionHolder.of(connection)
          : ConnectionHolder.lazy(url, connectionName);
      String servers = c.shownUrl();
      String routerName = router.toString().startsWith("SubjectRouter.") ? router.toString() : router.getClass().getName();
      NatsPublisherConfig config = new NatsPublisherConfig(servers, routerName, publishTimeout, connection == null);
      LOG.info("NATS publisher ready: {}", config);
      return new NatsPublisher(c, router, config);
    }
  }
}
