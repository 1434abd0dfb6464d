package io.twinbox;

import io.twinbox.internal.InboxRunner;
import io.twinbox.internal.ParkedForwarder;
import io.twinbox.internal.ParkedReplayer;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.internal.Reasons;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a broker through an {@link Inbox}: each message's effect commits in the database together
 * with its inbox record, and only then is the message acknowledged on the broker. A crash anywhere
 * causes a redelivery, which the inbox turns into a skipped duplicate. The broker is a {@link
 * MessageSource}; each broker module offers a builder that makes one ({@code
 * KafkaInboxConsumer.builder}, {@code RabbitInboxConsumer.builder}, {@code NatsInboxConsumer.builder}),
 * or pass your own to {@link #builder(MessageSource)}.
 *
 * <pre>{@code
 * InboxConsumer consumer = KafkaInboxConsumer.builder("localhost:9092", "payment-service")
 *     .topics("order")
 *     .inbox(inbox, dataSource)
 *     .handler((connection, message) -> payments.apply(connection, message))
 *     .build();
 * consumer.start();
 * }</pre>
 *
 * <p>One thread fetches a batch from the source and brings each message, in order, to a committed
 * end in transactions of up to {@code batchSize}: processed, duplicate or parked. A failing handler
 * is retried inline with backoff ({@link Builder#retryPolicy}) and parked in {@code
 * twinbox_inbox_parked} after {@code maxAttempts}; unreadable items and handlers throwing {@link
 * UnprocessableMessageException} are parked at once; database trouble is retried without using an
 * attempt. A message the broker says it delivered before counts an attempt before its handler runs
 * (unless the inbox holds it already), so one that kills the process is parked after {@code
 * maxAttempts} restarts. After each commit the source acknowledges what it committed; on {@link
 * #close()} the rest goes back to the broker. The inbox's {@link InboxListener} hears each commit's
 * latencies ({@link InboxListener#committed}).
 *
 * <p>Between two batches, at most every {@link Builder#replayInterval} (default 1 s), the consumer
 * carries out operators' replay requests of its parked messages ({@link
 * TwinboxAdmin#replayParked(long, String)}): each in a new transaction that records the message in
 * the inbox (applied at most once), runs the handler and marks the row {@code REPLAYED}; a failing
 * handler rolls back and the message is {@code PARKED} again with the new reason. The ordering guard
 * is not consulted for a replay. Needs a store that keeps the parked rows' states ({@link
 * io.twinbox.spi.InboxStore#supportsReplay()}).
 *
 * <p>Thread-safe to start, stop and read stats.
 */
public final class InboxConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);

  /**
   * Counters since start.
   *
   * @param processed effects committed
   * @param duplicates deliveries skipped as already processed
   * @param parked messages parked
   * @param retries handler failures retried
   * @param transactions database transactions committed
   * @param redelivered items the source marked as (possibly) delivered before: RabbitMQ's
   *     redelivered flag or delivery count, a JetStream delivery count above 1, the first record of
   *     each newly assigned Kafka partition
   * @param terminated parked messages terminated on the broker (NATS)
   * @param sessions times the source started delivering: Kafka partition assignments, RabbitMQ
   *     connections, JetStream subscriptions (more than one means rebalances or reconnections)
   */
  public record Stats(long processed, long duplicates, long parked, long retries, long transactions,
      long redelivered, long terminated, long sessions) {}

  /**
   * Operators' replay requests this consumer carried out since start.
   *
   * @param replayed handler ran and committed
   * @param noops the message id had been applied before: no handler run, marked replayed
   * @param failed the handler failed again: parked again with the new reason
   */
  public record Replays(long replayed, long noops, long failed) {}

  private final MessageSource source;
  private final InboxRunner runner;
  private final ParkedReplayer replayer;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong redelivered = new AtomicLong();
  private volatile boolean running;
  /** Null when parked messages are not forwarded. */
  private final ParkedForwarder forwarder;

  private InboxConsumer(Builder<?> b, MessageSource source) {
    this.source = source;
    this.forwarder = b.deadLetters == null ? null : new ParkedForwarder(b.inbox, b.deadLetters);
    this.runner = new InboxRunner(b.inbox, b.dataSource, b.handler, b.batchSize, b.retry, () -> running);
    this.replayer = new ParkedReplayer(b.inbox, b.dataSource, b.handler, b.replayInterval);
    this.thread = new Thread(this::run, "twinbox-" + source.name() + "-inbox-" + b.inbox.consumer());
    this.thread.setDaemon(true);
  }

  /** A builder for a consumer of {@code source}, a {@link MessageSource} of your own. */
  public static SourceBuilder builder(MessageSource source) {
    return new SourceBuilder(Objects.requireNonNull(source, "source cannot be null"));
  }

  /** Starts consuming on a thread of its own. Call once. */
  public void start() {
    if (running || thread.isAlive()) {
      throw new IllegalStateException("consumer already started");
    }
    running = true;
    thread.start();
    if (forwarder != null) {
      forwarder.start();
    }
  }

  private void run() {
    try {
      long sessions = 0;
      while (running) {
        List<ReceivedMessage> batch = source.fetch();
        if (source.sessions() != sessions) {
          sessions = source.sessions();
          runner.sessionStarted(); // holds get a full gapTimeout of delivery before any is overdue
        }
        if (!batch.isEmpty()) {
          handle(batch);
        }
        if (running) {
          runner.parkOverdueHeldIfDue();
          replayer.pollIfDue();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      log.error("consumer {} stopped by an unexpected error: {}", thread.getName(), Reasons.of(e), e);
      if (e instanceof Error err) {
        throw err;
      }
    } finally {
      running = false;
      closeSource();
      stopped.countDown();
    }
  }

  /** One batch, in order; each committed run is settled on the broker, the rest given back. */
  private void handle(List<ReceivedMessage> batch) throws InterruptedException {
    List<InboxRunner.Item> items = new ArrayList<>(batch.size());
    boolean[] again = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      ReceivedMessage r = batch.get(i);
      items.add(new InboxRunner.Item(r.message(), r.undecodable()));
      again[i] = r.redelivered();
      if (again[i]) {
        redelivered.incrementAndGet();
      }
    }
    int done = runner.processRedeliverable(items, again, (from, to) -> committed(batch, items, from, to));
    if (done < batch.size()) {
      source.giveBack(done);
    }
  }

  /** After a commit: the latencies to the listener, then the acknowledgement to the broker. */
  private void committed(List<ReceivedMessage> batch, List<InboxRunner.Item> items, int from, int to) {
    Instant now = Instant.now();
    boolean[] parked = new boolean[batch.size()];
    for (int i = from; i < to; i++) {
      ReceivedMessage r = batch.get(i);
      parked[i] = r.undecodable() != null | runner.takeParked(items.get(i).message().id());
      Instant time = r.message().time();
      runner.reportCommitted(r.message(), Duration.between(r.receivedAt(), now),
          time == null ? null : Duration.between(time, now));
    }
    source.settle(from, to, i -> parked[i]);
  }

  private void closeSource() {
    try {
      source.close();
    } catch (RuntimeException e) {
      log.warn("consumer {}: closing the {} source failed: {}", thread.getName(), source.name(), Reasons.of(e));
    }
  }

  /** Stops after the current transaction, settles what is done and gives the rest back to the broker. */
  @Override
  public void close() {
    running = false;
    if (forwarder != null) {
      forwarder.close();
    }
    source.wakeup();
    try {
      if (thread.isAlive() && !stopped.await(30, TimeUnit.SECONDS)) {
        log.warn("consumer thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean isRunning() {
    return running;
  }

  /** Parked messages forwarded to the dead-letter destination and acknowledged; 0 without one. */
  public long forwarded() {
    return forwarder == null ? 0 : forwarder.forwarded();
  }

  public Stats stats() {
    return new Stats(runner.processed.get(), runner.duplicates.get(), runner.parked.get(), runner.retries.get(),
        runner.transactions.get(), redelivered.get(), source.terminated(), source.sessions());
  }

  public Replays replays() {
    return new Replays(replayer.replayed.get(), replayer.noops.get(), replayer.failed.get());
  }

  /**
   * The settings every consumer shares ({@link InboxConsumerSettings}): the inbox, the handler, the
   * batch size and the retry policy. A broker's builder extends it with its own settings and makes
   * its source in {@link #source}, where it also checks its settings against these. Not
   * thread-safe.
   *
   * @param <B> the concrete builder, returned by every setter
   */
  public abstract static class Builder<B extends Builder<B>> {
    private Inbox inbox;
    private DataSource dataSource;
    private DeadLetterTransport deadLetters;
    private InboxHandler handler;
    private int batchSize = InboxConsumerSettings.BATCH_SIZE.defaultValue();
    private RetryPolicy retry = InboxConsumerSettings.DEFAULT_RETRY;
    private Duration replayInterval = InboxConsumerSettings.REPLAY_INTERVAL.defaultValue();

    protected Builder() {}

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /**
     * Also forwards every parked message of this consumer to a dead-letter destination, e.g. {@code
     * rabbitPublisher.deadLetters().orElseThrow()} (see the transport for the names): at least once,
     * by a thread of its own, marking each parked row forwarded once acknowledged; the row stays
     * parked. Forwarding starts with the messages parked before it was turned on. Needs a store that
     * forwards ({@code InboxStore.unforwardedParked}) and, on JDBC, schema script V8/V7.
     */
    public B deadLetters(DeadLetterTransport deadLetters) {
      this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters cannot be null");
      return self();
    }

    /** The inbox and the database its transactions run on. Required. */
    public B inbox(Inbox inbox, DataSource dataSource) {
      this.inbox = Objects.requireNonNull(inbox, "inbox cannot be null");
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
      return self();
    }

    /** The business effect. Required. */
    public B handler(InboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler cannot be null");
      return self();
    }

    /** Messages per database transaction ({@link InboxConsumerSettings#BATCH_SIZE}). */
    public B batchSize(int batchSize) {
      this.batchSize = InboxConsumerSettings.BATCH_SIZE.check(batchSize);
      return self();
    }

    /** Attempts and backoff for failing handlers. Default {@link InboxConsumerSettings#DEFAULT_RETRY}. */
    public B retryPolicy(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retryPolicy cannot be null");
      return self();
    }

    /**
     * How often, at most, the consumer looks for operators' replay requests of its parked messages
     * ({@link InboxConsumerSettings#REPLAY_INTERVAL}).
     */
    public B replayInterval(Duration interval) {
      this.replayInterval = InboxConsumerSettings.REPLAY_INTERVAL.check(interval);
      return self();
    }

    /**
     * Makes the source, once the shared settings are known and valid; refuses, with an {@link
     * IllegalArgumentException} naming the settings, a combination the broker would defeat (a retry
     * longer than the broker's redelivery timeout, a batch larger than the prefetch).
     */
    protected abstract MessageSource source(Shared shared);

    /** Validates the settings and makes the consumer (not started). */
    public final InboxConsumer build() {
      if (inbox == null || handler == null) {
        throw new IllegalArgumentException("inbox(...) and handler(...) are required");
      }
      return new InboxConsumer(this, source(new Shared(inbox.consumer(), batchSize, retry)));
    }
  }

  /**
   * The shared settings a broker's builder sees when it makes its source.
   *
   * @param consumer the inbox's consumer name (for connection names)
   * @param batchSize messages per transaction (and the most one fetch needs to return)
   * @param retry the retry policy of failing handlers
   */
  public record Shared(String consumer, int batchSize, RetryPolicy retry) {
    /** The longest a message can be retried inline: {@code maxDelay × maxAttempts}, in milliseconds. */
    public long worstRetryMillis() {
      return retry.maxDelay().toMillis() * retry.maxAttempts();
    }
  }

  /** The builder of a consumer of a given {@link MessageSource}. Not thread-safe. */
  public static final class SourceBuilder extends Builder<SourceBuilder> {
    private final MessageSource source;

    SourceBuilder(MessageSource source) {
      this.source = source;
    }

    @Override
    protected MessageSource source(Shared shared) {
      return source;
    }
  }
}
