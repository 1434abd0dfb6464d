package io.twinbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.twinbox.nats.internal.ConnectionHolder;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.nats.internal.NatsOutcomes;
import io.twinbox.nats.internal.StreamLookup;
import io.twinbox.nats.internal.Subjects;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spi.WireAttributes;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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
 * connections {@code UNAVAILABLE}). "No stream" is decided by JetStream's stream list
 * ({@code $JS.API.STREAM.NAMES} filtered by the subject) after a publish got a status reply instead
 * of an ack, so the relay's NATS user needs permission for that API subject; without it such
 * events stay {@code UNAVAILABLE} (republished, never FAILED). Futures complete on the NATS client's threads: dependent stages
 * must not block. Thread-safe; one instance serves all relay workers.
 */
public final class NatsPublisher implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(NatsPublisher.class);

  private final ConnectionHolder connection;
  private final StreamLookup streams;
  private volatile JetStream jetStream;
  private final SubjectRouter router;
  private final SubjectRouter deadLetterRouter;
  private final NatsPublisherConfig config;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private volatile boolean closed;

  private NatsPublisher(ConnectionHolder connection, SubjectRouter router, SubjectRouter deadLetterRouter,
      NatsPublisherConfig config) {
    this.connection = connection;
    this.router = router;
    this.deadLetterRouter = deadLetterRouter;
    this.config = config;
    this.streams = new StreamLookup(connection, config.publishTimeout());
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
    return send(m, source -> WireAttributes.of(m, source), m.id().toString(), router);
  }

  /**
   * Dead letters on this publisher's connection, with the same outcomes (no stream for the subject:
   * {@code REJECTED}, kept pending), as the original event (same attributes and payload) plus the
   * headers {@code ce-dlqreason}, {@code ce-dlqattempts}, {@code ce-dlqfirstfailure} and {@code
   * ce-dlqlastfailure}; subject: the builder's {@link Builder#deadLetterRouter dead-letter router},
   * by default {@code dlq.} + the event's subject. {@code Nats-Msg-Id} is the event id + {@code
   * :dlq:} + the last failure's epoch milliseconds: a resend of the same dead letter is dropped by
   * the stream, a later failure of the same event (after a retry) is a new one.
   */
  @Override
  public Optional<DeadLetterTransport> deadLetters() {
    return Optional.of(new DeadLetterTransport() {
      @Override
      public String name() {
        return "nats dead letters (" + deadLetterRouter + ")";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
        OutboxMessage m = letter.message();
        String msgId = m.id() + ":dlq:" + (letter.lastFailedAt() == null ? 0 : letter.lastFailedAt().toEpochMilli());
        return NatsPublisher.this.send(m, source -> WireAttributes.of(letter, source), msgId, deadLetterRouter);
      }

      /** A parked message, routed as its stand-in; {@code Nats-Msg-Id}: parked: + consumer + row. */
      @Override
      public CompletableFuture<PublishOutcome> forward(ParkedLetter letter) {
        return NatsPublisher.this.send(letter.standIn(), source -> WireAttributes.of(letter, source),
            "parked:" + letter.consumer() + ":" + letter.row(), deadLetterRouter);
      }
    });
  }

  private CompletableFuture<PublishOutcome> send(OutboxMessage m,
      java.util.function.Function<URI, java.util.Map<String, Object>> attributes, String msgId, SubjectRouter router) {
    Connection c = connection.currentOrNull();
    if (closed || (c != null && c.getStatus() == Connection.Status.CLOSED)) {
      return done(PublishOutcome.unavailable("the NATS publisher or its connection is closed"));
    }
    URI source = WireAttributes.sourceOrNull(m.source());
    if (source == null) { // the relay's configuration, not this event: hold everything back, fail nothing
      return done(PublishOutcome.unavailable(WireAttributes.INVALID_SOURCE));
    }
    String subject;
    Headers headers;
    try {
      subject = Subjects.validate(router.subjectFor(m));
      headers = NatsCloudEvents.headers(m, attributes.apply(source));
    } catch (RuntimeException e) {
      return done(PublishOutcome.rejected("cannot route or encode the event: " + e.getClass().getSimpleName() + ": "
          + e.getMessage()));
    }
    PublishOptions options = PublishOptions.builder().messageId(msgId).build();
    CompletableFuture<PublishAck> ack;
    try {
      ack = jetStream().publishAsync(subject, headers, m.payload().getBytes(StandardCharsets.UTF_8), options);
    } catch (IOException | RuntimeException e) {
      return done(NatsOutcomes.classify(e, subject));
    }
    return ack.orTimeout(config.publishTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .handle((a, e) -> e == null ? done(acked(a, m)) : failed(e, subject))
        .thenCompose(f -> f);
  }

  /**
   * A failed publish. One answered by something other than an ack (e.g. 503 "no responders", which
   * jnats reports only as an error text) is checked against JetStream's stream list: no stream for
   * the subject is {@code REJECTED}, anything else keeps its classification (UNAVAILABLE).
   */
  private CompletableFuture<PublishOutcome> failed(Throwable e, String subject) {
    PublishOutcome o = NatsOutcomes.classify(e, subject);
    if (!NatsOutcomes.mayLackAStream(e)) {
      return done(o);
    }
    return streams.streamFor(subject).thenApply(a -> a == StreamLookup.Answer.NONE ? NatsOutcomes.noStream(subject) : o);
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
    streams.close();
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

  /**
   * Configures a {@link NatsPublisher}; defaults and limits: {@link NatsPublisherSettings}. Not
   * thread-safe; use it from one thread, then discard it.
   */
  public static final class Builder {
    private final Connection connection;
    private final String url;
    private SubjectRouter router = SubjectRouter.byAggregateType();
    private SubjectRouter deadLetterRouter;
    private String deadLetterPrefix = NatsPublisherSettings.DEAD_LETTER_PREFIX.defaultValue();
    private Duration publishTimeout = NatsPublisherSettings.PUBLISH_TIMEOUT.defaultValue();
    private String connectionName = NatsPublisherSettings.CONNECTION_NAME.defaultValue();

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

    /**
     * Chooses each dead letter's subject ({@link NatsPublisher#deadLetters()}). Default {@link
     * SubjectRouter#deadLetters}{@code (subjectRouter, "dlq")}.
     */
    public Builder deadLetterRouter(SubjectRouter router) {
      this.deadLetterRouter = Objects.requireNonNull(router, "deadLetterRouter cannot be null");
      return this;
    }

    /**
     * The first token(s) of the default dead-letter subjects, {@code <prefix>.<the event's subject>}
     * ({@link NatsPublisherSettings#DEAD_LETTER_PREFIX}); ignored when a {@link #deadLetterRouter} is set.
     */
    public Builder deadLetterPrefix(String prefix) {
      this.deadLetterPrefix = NatsPublisherSettings.DEAD_LETTER_PREFIX.check(prefix);
      return this;
    }

    /** Longest wait for a publish ack before {@code UNAVAILABLE} ({@link NatsPublisherSettings#PUBLISH_TIMEOUT}). */
    public Builder publishTimeout(Duration timeout) {
      this.publishTimeout = NatsPublisherSettings.PUBLISH_TIMEOUT.check(timeout);
      return this;
    }

    /** The connection name the server shows, for a connection this builder creates ({@link NatsPublisherSettings#CONNECTION_NAME}). */
    public Builder connectionName(String name) {
      this.connectionName = NatsPublisherSettings.CONNECTION_NAME.check(name);
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
      return new NatsPublisher(c, router, deadLetterRouter != null ? deadLetterRouter
          : SubjectRouter.deadLetters(router, deadLetterPrefix), config);
    }
  }
}
