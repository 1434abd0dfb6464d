package io.twinbox.nats;

import io.nats.client.ConsumeOptions;
import io.nats.client.Connection;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusCheckedException;
import io.nats.client.Message;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.InboxRunner;
import io.twinbox.internal.Reasons;
import io.twinbox.nats.internal.ConnectionHolder;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.nats.internal.NatsConnections;
import io.twinbox.nats.internal.ParkWatch;
import java.io.IOException;
import java.time.Duration;
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
 * Consumes a JetStream durable pull consumer through an {@link Inbox}: each message's effect
 * commits in the database together with its inbox record, and only then is the message
 * acknowledged. A crash anywhere causes a redelivery (after {@code ackWait}), which the inbox turns
 * into a skipped duplicate.
 *
 * <pre>{@code
 * NatsInboxConsumer consumer = NatsInboxConsumer.builder("nats://localhost:4222", "ORDER", "payment-service")
 *     .filterSubject("twinbox.order.>")
 *     .inbox(inbox, dataSource)
 *     .handler((connection, message) -> payments.apply(connection, message))
 *     .build();
 * consumer.start();
 * }</pre>
 *
 * <p>The durable consumer is created or updated on start: explicit acks, deliver all,
 * {@code ackWait} (default 60 s), {@code maxDeliver} (default 20). One thread takes up to
 * {@code batchSize} messages (waiting at most {@code batchWait} for more after the first) and hands
 * them in stream order to the inbox. A handler failure is retried inline with backoff, not with
 * {@code nak}: a nak'd message would come back after the aggregate's later messages and break
 * per-aggregate order. After {@code maxAttempts} the message is parked in {@code
 * twinbox_inbox_parked} and terminated on the server ({@code term()}); unreadable messages and
 * {@code UnprocessableMessageException} are parked and terminated at once. A redelivered message
 * (delivery count above 1) counts one attempt before its handler runs, so one that kills the process
 * is parked after {@code maxAttempts} restarts. On {@link #close()}, messages fetched but not done
 * are nak'd so they come back at once rather than after {@code ackWait}.
 *
 * <p>Thread-safe to start, stop and read stats.
 */
public final class NatsInboxConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NatsInboxConsumer.class);

  /**
   * Counters since start.
   *
   * @param processed effects committed
   * @param duplicates deliveries skipped as already processed
   * @param parked messages parked
   * @param terminated messages terminated on the server after parking
   * @param retries handler failures retried
   * @param transactions database transactions committed
   * @param redelivered messages the server delivered more than once
   */
  public record Stats(long processed, long duplicates, long parked, long terminated, long retries, long transactions,
      long redelivered) {}

  private final ConnectionHolder connection;
  private final String stream;
  private final ConsumerConfiguration consumerConfig;
  private final int batchSize;
  private final long batchWaitNanos;
  private final InboxRunner runner;
  private final ParkWatch watch;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong terminated = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private volatile boolean running;

  private NatsInboxConsumer(Builder b, ConnectionHolder connection) {
    this.connection = connection;
    this.stream = b.stream;
    ConsumerConfiguration.Builder cc = ConsumerConfiguration.builder().durable(b.durable)
        .ackPolicy(AckPolicy.Explicit).deliverPolicy(DeliverPolicy.All).ackWait(b.ackWait).maxDeliver(b.maxDeliver);
    if (b.filterSubject != null) {
      cc.filterSubject(b.filterSubject);
    }
    this.consumerConfig = cc.build();
    this.batchSize = b.batchSize;
    this.batchWaitNanos = b.batchWait.toNanos();
    this.watch = new ParkWatch(b.handler);
    this.runner = new InboxRunner(b.inbox, b.dataSource, watch, b.batchSize, b.retry, () -> running);
    this.thread = new Thread(this::run, "twinbox-nats-inbox-" + b.inbox.consumer());
    this.thread.setDaemon(true);
  }

  /** Starts a builder for a connection to {@code url} that the consumer opens on start and owns. */
  public static Builder builder(String url, String stream, String durable) {
    return new Builder(null, url, stream, durable);
  }

  /** Starts a builder on the user's connection; {@link #close()} leaves it open. */
  public static Builder builder(Connection connection, String stream, String durable) {
    return new Builder(Objects.requireNonNull(connection, "connection cannot be null"), null, stream, durable);
  }

  /** Creates or updates the durable consumer and starts consuming on a thread of its own. Call once. */
  public void start() {
    if (running || thread.isAlive()) {
      throw new IllegalStateException("consumer already started");
    }
    running = true;
    thread.start();
  }

  private void run() {
    IterableConsumer source = null;
    List<Message> batch = new ArrayList<>(batchSize);
    try {
      while (running) {
        if (source == null) {
          source = subscribe();
          continue;
        }
        batch.clear();
        try {
          Message first = source.nextMessage(Duration.ofMillis(200));
          if (first == null) {
            continue;
          }
          batch.add(first);
          long deadline = System.nanoTime() + batchWaitNanos;
          while (batch.size() < batchSize) {
            long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            Message m = deadline - System.nanoTime() > 0 ? source.nextMessage(wait) : null;
            if (m == null) {
              break;
            }
            batch.add(m);
          }
        } catch (JetStreamStatusCheckedException | IllegalStateException e) {
          log.warn("consumer {}: pull failed ({}); re-subscribing", thread.getName(), Reasons.of(e));
          nakAll(batch);
          stop(source);
          source = null;
          continue;
        }
        handle(batch);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("consumer {} stopped by an unexpected error: {}", thread.getName(), Reasons.of(e), e);
    } finally {
      running = false;
      if (source != null) {
        drainAndStop(source);
      }
      connection.close(); // only if this consumer opened it
      stopped.countDown();
    }
  }

  private IterableConsumer subscribe() throws InterruptedException {
    try {
      return connection.acquire().getStreamContext(stream).createOrUpdateConsumer(consumerConfig)
          .iterate(ConsumeOptions.builder().batchSize(batchSize).build());
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      log.warn("consumer {}: cannot bind durable {} on stream {}: {}; retrying in 1 s", thread.getName(),
          consumerConfig.getDurable(), stream, Reasons.of(e));
      Thread.sleep(1_000);
      return null;
    }
  }

  /**
   * Processes in stream order ({@link InboxRunner#processRedeliverable}); settles each message after
   * its commit and gives back what was not reached.
   */
  private void handle(List<Message> batch) throws InterruptedException {
    List<InboxRunner.Item> items = new ArrayList<>(batch.size());
    boolean[] again = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      Message m = batch.get(i);
      NatsCloudEvents.Decoded d = NatsCloudEvents.decode(m);
      items.add(new InboxRunner.Item(d.message(), d.failure()));
      again[i] = redelivered(m);
      if (again[i]) {
        redelivered.incrementAndGet();
      }
    }
    int done = runner.processRedeliverable(items, again, (from, to) -> {
      for (int i = from; i < to; i++) {
        settle(batch.get(i), items.get(i));
      }
    });
    if (done < batch.size()) {
      nakAll(batch.subList(done, batch.size()));
    }
  }

  /** After the commit: term() what was parked for a failure, ack() everything else. */
  private void settle(Message m, InboxRunner.Item item) {
    try {
      if (item.decodeFailure() != null | watch.takeFailed(item.message().id())) {
        m.term();
        terminated.incrementAndGet();
      } else {
        m.ack();
      }
    } catch (RuntimeException e) {
      log.warn("consumer {}: ack failed; the message will be redelivered and skipped as a duplicate: {}",
          thread.getName(), Reasons.of(e));
    }
  }

  private static boolean redelivered(Message m) {
    return m.isJetStream() && m.metaData().deliveredCount() > 1;
  }

  private void nakAll(List<Message> messages) {
    for (Message m : messages) {
      try {
        m.nak();
      } catch (RuntimeException e) {
        return; // the connection is gone: the server redelivers after ackWait
      }
    }
  }

  /** Stops pulling and gives back what was already fetched, so it is redelivered at once. */
  private void drainAndStop(IterableConsumer source) {
    try {
      source.stop();
      for (Message m = source.nextMessage(50); m != null; m = source.nextMessage(50)) {
        nakAll(List.of(m));
      }
    } catch (JetStreamStatusCheckedException | RuntimeException e) {
      log.debug("consumer {}: draining on stop: {}", thread.getName(), Reasons.of(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stop(source);
  }

  private static void stop(IterableConsumer source) {
    try {
      source.close();
    } catch (Exception e) {
      // Closing a consumer of a dead connection fails; there is nothing left to release.
    }
  }

  /** Stops after the current transaction, gives back fetched messages, leaves the durable consumer in place. */
  @Override
  public void close() {
    running = false;
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

  public Stats stats() {
    return new Stats(runner.processed.get(), runner.duplicates.get(), runner.parked.get(), terminated.get(),
        runner.retries.get(), runner.transactions.get(), redelivered.get());
  }

  /** Configures a {@link NatsInboxConsumer}. Not thread-safe. */
  public static final class Builder {
    private final Connection connection;
    private final String url;
    private final String stream;
    private final String durable;
    private String filterSubject;
    private Inbox inbox;
    private DataSource dataSource;
    private InboxHandler handler;
    private int batchSize = 50;
    private Duration batchWait = Duration.ofMillis(20);
    private Duration ackWait = Duration.ofSeconds(60);
    private int maxDeliver = 20;
    private RetryPolicy retry = RetryPolicy.builder().maxAttempts(5)
        .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build();

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

    /** The inbox and the database its transactions run on. Required. */
    public Builder inbox(Inbox inbox, DataSource dataSource) {
      this.inbox = Objects.requireNonNull(inbox, "inbox cannot be null");
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
      return this;
    }

    /** The business effect. Required. */
    public Builder handler(InboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler cannot be null");
      return this;
    }

    /** Messages per database transaction, and per pull. Default 50; 1–1000. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > 1000) {
        throw new IllegalArgumentException("batchSize must be within [1, 1000], was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /** After the first message, how long to wait for more to fill a batch. Default 20 ms; 0–1 s. */
    public Builder batchWait(Duration wait) {
      this.batchWait = NatsConnections.within("batchWait", wait, Duration.ZERO, Duration.ofSeconds(1));
      return this;
    }

    /**
     * How long the server waits for an ack before redelivering. Default 60 s; 1 s – 1 h. Must be
     * more than twice the longest inline retry ({@code maxDelay × maxAttempts}).
     */
    public Builder ackWait(Duration ackWait) {
      this.ackWait = NatsConnections.within("ackWait", ackWait, Duration.ofSeconds(1), Duration.ofHours(1));
      return this;
    }

    /**
     * The server's delivery limit: after that many deliveries it stops redelivering. A backstop
     * only: the inbox parks a message after {@code maxAttempts}, which should be lower. Default 20;
     * -1 for none.
     */
    public Builder maxDeliver(int maxDeliver) {
      if (maxDeliver == 0 || maxDeliver < -1) {
        throw new IllegalArgumentException("maxDeliver must be -1 or >= 1, was " + maxDeliver);
      }
      this.maxDeliver = maxDeliver;
      return this;
    }

    /** Attempts and backoff for failing handlers. Default 5 attempts, 200 ms → 5 s, full jitter. */
    public Builder retryPolicy(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retryPolicy cannot be null");
      return this;
    }

    /** Validates the settings. With a URL, the consumer's thread connects (and keeps retrying) once started. */
    public NatsInboxConsumer build() {
      if (inbox == null || handler == null) {
        throw new IllegalArgumentException("inbox(...) and handler(...) are required");
      }
      long worstRetry = retry.maxDelay().toMillis() * retry.maxAttempts();
      if (worstRetry * 2 > ackWait.toMillis()) {
        throw new IllegalArgumentException("retryPolicy may wait " + worstRetry + " ms on one message, more than half "
            + "of ackWait (" + ackWait.toMillis() + " ms): the server would redeliver it while it is retried");
      }
      if (maxDeliver != -1 && maxDeliver <= retry.maxAttempts()) {
        throw new IllegalArgumentException("maxDeliver (" + maxDeliver + ") must exceed retryPolicy.maxAttempts ("
            + retry.maxAttempts() + "): the server would stop redelivering before the inbox parks the message");
      }
      ConnectionHolder c = connection != null ? ConnectionHolder.of(connection)
          : ConnectionHolder.lazy(url, "twinbox-inbox-" + inbox.consumer());
      return new NatsInboxConsumer(this, c);
    }
  }
}
