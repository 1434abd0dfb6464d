package io.twinbox.nats;

import io.nats.client.Connection;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxConsumerSettings;
import io.twinbox.nats.internal.ConnectionHolder;
import io.twinbox.nats.internal.NatsSource;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.spi.MessageSource;
import java.time.Duration;
import java.util.Objects;

/**
 * Builds an {@link InboxConsumer} of a JetStream durable pull consumer: each message's effect
 * commits in the database together with its inbox record, and only then is the message
 * acknowledged. A crash anywhere causes a redelivery (after {@code ackWait}), which the inbox turns
 * into a skipped duplicate.
 *
 * <pre>{@code
 * InboxConsumer consumer = NatsInboxConsumer.builder("nats://localhost:4222", "ORDER", "payment-service")
 *     .filterSubject("twinbox.order.>")
 *     .inbox(inbox, dataSource)
 *     .handler((connection, message) -> payments.apply(connection, message))
 *     .build();
 * consumer.start();
 * }</pre>
 *
 * <p>The durable consumer is created or updated on start: explicit acks, deliver all,
 * {@code ackWait} (default 60 s), {@code maxDeliver} (default -1: none). One thread takes up to
 * {@code batchSize} messages (waiting at most {@code batchWait} for more after the first) and hands
 * them in stream order to the inbox. A handler failure is retried inline with backoff, not with
 * {@code nak}: a nak'd message would come back after the aggregate's later messages and break
 * per-aggregate order. After {@code maxAttempts} the message is parked in {@code
 * twinbox_inbox_parked} and terminated on the server ({@code term()}); unreadable messages and
 * {@code UnprocessableMessageException} are parked and terminated at once. A redelivered message
 * (delivery count above 1) counts one attempt before its handler runs, so one that kills the process
 * is parked after {@code maxAttempts} restarts. On {@link InboxConsumer#close()}, messages fetched but not done
 * are nak'd so they come back at once rather than after {@code ackWait}.
 */
public final class NatsInboxConsumer {
  private NatsInboxConsumer() {}

  /** Starts a builder for a connection to {@code url} that the consumer opens on start and owns. */
  public static Builder builder(String url, String stream, String durable) {
    return new Builder(null, url, stream, durable);
  }

  /** Starts a builder on the user's connection; {@link InboxConsumer#close()} leaves it open. */
  public static Builder builder(Connection connection, String stream, String durable) {
    return new Builder(Objects.requireNonNull(connection, "connection cannot be null"), null, stream, durable);
  }

  /** Configures an {@link InboxConsumer} of a JetStream durable consumer. Not thread-safe. */
  public static final class Builder extends InboxConsumer.Builder<Builder> {
    public static final Setting<Duration> BATCH_WAIT = Setting.duration("batchWait")
        .range(Duration.ZERO, Duration.ofSeconds(1)).defaultValue(Duration.ofMillis(20))
        .description("After the first message, how long to wait for more to fill a batch.");
    public static final Setting<Duration> ACK_WAIT = Setting.duration("ackWait")
        .range(Duration.ofSeconds(1), Duration.ofHours(1)).defaultValue(Duration.ofSeconds(60))
        .description("How long the server waits for an ack before redelivering; over twice the longest retry.");
    public static final Setting<Integer> MAX_DELIVER = Setting.integer("maxDeliver")
        .valid(n -> n == -1 || n >= 1, "-1 (no limit) or >= 1").defaultValue(-1)
        .description("The server's delivery limit; -1 (none) unless you accept that the server drops a message"
            + " after that many deliveries, which count give-backs and other messages' crashes too.");
    /** This consumer's settings: the shared ones ({@link InboxConsumerSettings}) and JetStream's. */
    public static final Catalogue<Builder> SETTINGS = InboxConsumerSettings.<Builder>common("nats.consumer",
        "NatsInboxConsumer.Builder", Builder::batchSize, Builder::retryPolicy)
        .add(BATCH_WAIT, Builder::batchWait).add(ACK_WAIT, Builder::ackWait).add(MAX_DELIVER, Builder::maxDeliver)
        .build();

    private final Connection connection;
    private final String url;
    private final String stream;
    private final String durable;
    private String filterSubject;
    private Duration batchWait = BATCH_WAIT.defaultValue();
    private Duration ackWait = ACK_WAIT.defaultValue();
    private int maxDeliver = MAX_DELIVER.defaultValue();

    Builder(Connection connection, String url, String stream, String durable) {
      this.connection = connection;
      this.url = url;
      if (connection == null && (url == null || url.isBlank())) {
        throw new IllegalArgumentException("url must not be blank");
      }
      if (stream == null || stream.isBlank() || durable == null || durable.isBlank()) {
        throw new IllegalArgumentException("stream and durable must not be blank");
      }
      this.stream = stream;
      this.durable = durable;
    }

    /** Only messages on subjects matching this filter (e.g. {@code twinbox.order.>}). Default: the whole stream. */
    public Builder filterSubject(String subject) {
      this.filterSubject = Objects.requireNonNull(subject, "filterSubject cannot be null");
      return this;
    }

    /** After the first message, how long to wait for more to fill a batch ({@link #BATCH_WAIT}). */
    public Builder batchWait(Duration wait) {
      this.batchWait = BATCH_WAIT.check(wait);
      return this;
    }

    /**
     * How long the server waits for an ack before redelivering ({@link #ACK_WAIT}). Must be more
     * than twice the longest inline retry ({@code maxDelay × maxAttempts}).
     */
    public Builder ackWait(Duration ackWait) {
      this.ackWait = ACK_WAIT.check(ackWait);
      return this;
    }

    /**
     * The server's delivery limit: after that many deliveries it stops delivering the message, and
     * the inbox never sees it end — neither applied nor parked. Every delivery counts, not only the
     * inbox's attempts: the give-back of messages fetched but not done when a consumer closes, and
     * the redelivery of a whole unacknowledged batch after any crash. The default is -1, no limit:
     * the inbox's own {@code maxAttempts} parks a poison message, also one that kills the process.
     * A finite value must exceed {@code maxAttempts} and is logged as a risk at start ({@link
     * #MAX_DELIVER}).
     */
    public Builder maxDeliver(int maxDeliver) {
      this.maxDeliver = MAX_DELIVER.check(maxDeliver);
      return this;
    }

    /** With a URL, the consumer's thread connects (and keeps retrying) once started. */
    @Override
    protected MessageSource source(InboxConsumer.Shared shared) {
      long worstRetry = shared.worstRetryMillis();
      if (worstRetry * 2 > ackWait.toMillis()) {
        throw new IllegalArgumentException("retryPolicy may wait " + worstRetry + " ms on one message, more than half "
            + "of ackWait (" + ackWait.toMillis() + " ms): the server would redeliver it while it is retried");
      }
      if (maxDeliver != -1 && maxDeliver <= shared.retry().maxAttempts()) {
        throw new IllegalArgumentException("maxDeliver (" + maxDeliver + ") must exceed retryPolicy.maxAttempts ("
            + shared.retry().maxAttempts() + "): the server would stop redelivering before the inbox parks the message");
      }
      if (maxDeliver != -1) {
        org.slf4j.LoggerFactory.getLogger(NatsInboxConsumer.class).warn("consumer {}: maxDeliver {} lets the server"
            + " stop delivering a message after {} deliveries, counting give-backs on close and redeliveries after"
            + " other messages' crashes: such a message is neither applied nor parked. -1 (the default) has no limit;"
            + " the inbox parks poison after retryPolicy.maxAttempts", shared.consumer(), maxDeliver, maxDeliver);
      }
      ConnectionHolder c = connection != null ? ConnectionHolder.of(connection)
          : ConnectionHolder.lazy(url, "twinbox-inbox-" + shared.consumer());
      ConsumerConfiguration.Builder cc = ConsumerConfiguration.builder().durable(durable)
          .ackPolicy(AckPolicy.Explicit).deliverPolicy(DeliverPolicy.All).ackWait(ackWait).maxDeliver(maxDeliver);
      if (filterSubject != null) {
        cc.filterSubject(filterSubject);
      }
      return new NatsSource(c, stream, cc.build(), shared.batchSize(), batchWait);
    }
  }
}
