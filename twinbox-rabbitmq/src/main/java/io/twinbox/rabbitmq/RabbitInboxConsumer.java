package io.twinbox.rabbitmq;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.InboxRunner;
import io.twinbox.internal.Reasons;
import io.twinbox.rabbitmq.internal.AmqpCloudEvents;
import io.twinbox.rabbitmq.internal.ConfirmLink;
import io.twinbox.rabbitmq.internal.Connections;
import io.twinbox.rabbitmq.internal.ConsumerSession;
import io.twinbox.rabbitmq.internal.ConsumerSession.Received;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a RabbitMQ queue through an {@link Inbox}: each message's effect commits in the database
 * together with its inbox record, and only then is the delivery acknowledged ({@code basic.ack},
 * multiple, up to the last committed delivery). A crash anywhere causes a redelivery, which the inbox
 * turns into a skipped duplicate.
 *
 * <pre>{@code
 * RabbitInboxConsumer consumer = RabbitInboxConsumer.builder("amqp://localhost", "payment-service.order")
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
 * requeues, can reorder (see the module README). Thread-safe to start, stop and read stats.
 */
public final class RabbitInboxConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RabbitInboxConsumer.class);

  /**
   * Counters since start.
   *
   * @param processed effects committed
   * @param duplicates deliveries skipped as already processed
   * @param parked messages parked
   * @param retries handler failures retried
   * @param transactions database transactions committed
   * @param connections connections opened (more than one means reconnections)
   * @param redelivered deliveries that the broker marked as delivered before
   */
  public record Stats(long processed, long duplicates, long parked, long retries, long transactions,
      long connections, long redelivered) {}

  private final ConnectionFactory factory;
  private final String queue;
  private final String connectionName;
  private final int prefetch;
  private final int batchSize;
  private final long batchWaitNanos;
  private final Duration reconnectBackoff;
  private final InboxRunner runner;
  private final Thread thread;
  private final BlockingQueue<Received> buffer = new LinkedBlockingQueue<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private volatile boolean running;

  private RabbitInboxConsumer(Builder b) {
    this.factory = b.factory;
    this.queue = b.queue;
    this.connectionName = b.connectionName != null ? b.connectionName : "twinbox-inbox-" + b.inbox.consumer();
    this.prefetch = b.prefetch;
    this.batchSize = b.batchSize;
    this.batchWaitNanos = b.batchWait.toNanos();
    this.reconnectBackoff = b.reconnectBackoff;
    this.runner = new InboxRunner(b.inbox, b.dataSource, b.handler, b.batchSize, b.retry, () -> running);
    this.thread = new Thread(this::run, "twinbox-rabbitmq-inbox-" + b.inbox.consumer());
    this.thread.setDaemon(true);
  }

  /** Starts a builder from an AMQP URI ({@code amqp://user:password@host:port/vhost}) and a queue. */
  public static Builder builder(String uri, String queue) {
    return new Builder(Connections.fromUri(uri), queue);
  }

  /** Starts a builder from the user's connection factory (copied) and a queue. */
  public static Builder builder(ConnectionFactory factory, String queue) {
    return new Builder(Connections.copyOf(factory), queue);
  }

  /** Starts consuming on a thread of its own. Call once. */
  public void start() {
    if (running || thread.isAlive()) {
      throw new IllegalStateException("consumer already started");
    }
    running = true;
    thread.start();
  }

  private void run() {
    ConsumerSession session = null;
    try {
      while (running) {
        if (session == null || !session.isOpen()) {
          session = reconnect(session);
          continue;
        }
        Received first = buffer.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        List<Received> batch = new ArrayList<>(batchSize);
        batch.add(first);
        long deadline = System.nanoTime() + batchWaitNanos;
        while (batch.size() < batchSize) {
          long wait = deadline - System.nanoTime();
          Received r = wait > 0 ? buffer.poll(wait, TimeUnit.NANOSECONDS) : buffer.poll();
          if (r == null) {
            break;
          }
          batch.add(r);
        }
        ConsumerSession current = session;
        batch.removeIf(r -> r.session() != current); // from a dead channel: the broker redelivers them
        handle(current, batch);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("consumer {} stopped by an unexpected error: {}", thread.getName(), Reasons.of(e), e);
    } finally {
      running = false;
      if (session != null) {
        session.close(); // unacknowledged deliveries go back to the queue
      }
      stopped.countDown();
    }
  }

  private ConsumerSession reconnect(ConsumerSession old) throws InterruptedException {
    if (old != null) {
      old.close();
      buffer.clear();
      log.warn("consumer {}: connection to queue {} lost; reconnecting", thread.getName(), queue);
    }
    try {
      ConsumerSession s = ConsumerSession.open(factory, connectionName, queue, prefetch, buffer);
      connections.incrementAndGet();
      return s;
    } catch (IOException | TimeoutException | RuntimeException e) {
      log.warn("consumer {}: cannot consume queue {} on {}:{}: {}; retrying in {}", thread.getName(), queue,
          factory.getHost(), factory.getPort(), ConfirmLink.describe(e), reconnectBackoff);
      Thread.sleep(Math.max(10, reconnectBackoff.toMillis()));
      return null;
    }
  }

  /**
   * Processes in delivery order ({@link InboxRunner#processRedeliverable}), acknowledging up to the
   * last committed message of each run; when stopping, the rest goes back to the queue as the channel
   * closes.
   */
  private void handle(ConsumerSession session, List<Received> batch) throws InterruptedException {
    List<InboxRunner.Item> items = new ArrayList<>(batch.size());
    boolean[] again = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      Received r = batch.get(i);
      String origin = queue + "@" + r.envelope().getDeliveryTag();
      AmqpCloudEvents.Decoded d = AmqpCloudEvents.decode(r.properties(), r.body(), origin);
      items.add(new InboxRunner.Item(d.message(), d.failure()));
      again[i] = r.redelivered();
      if (again[i]) {
        redelivered.incrementAndGet();
      }
    }
    runner.processRedeliverable(items, again,
        (from, to) -> ack(session, batch.get(to - 1).envelope().getDeliveryTag())); // only after the commit
  }

  private void ack(ConsumerSession session, long tag) {
    try {
      session.ackUpTo(tag); // only after the database commit
    } catch (IOException | AlreadyClosedException e) {
      log.warn("consumer {}: ack failed; the messages will be redelivered and skipped as duplicates: {}",
          thread.getName(), ConfirmLink.describe(e));
    }
  }

  /** Stops after the current transaction and closes the connection (unacknowledged messages are requeued). */
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
    return new Stats(runner.processed.get(), runner.duplicates.get(), runner.parked.get(), runner.retries.get(),
        runner.transactions.get(), connections.get(), redelivered.get());
  }

  /** Configures a {@link RabbitInboxConsumer}. Not thread-safe. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private final String queue;
    private Inbox inbox;
    private DataSource dataSource;
    private InboxHandler handler;
    private String connectionName;
    private int prefetch = 50;
    private int batchSize = 50;
    private Duration batchWait = Duration.ofMillis(20);
    private Duration reconnectBackoff = Duration.ofSeconds(1);
    private RetryPolicy retry = RetryPolicy.builder().maxAttempts(5)
        .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build();

    Builder(ConnectionFactory factory, String queue) {
      if (queue == null || queue.isBlank()) {
        throw new IllegalArgumentException("queue must not be blank");
      }
      this.factory = factory;
      this.queue = queue;
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

    /** Unacknowledged deliveries the broker may push ({@code basic.qos}). Default 50; 1–65535. */
    public Builder prefetch(int prefetch) {
      if (prefetch < 1 || prefetch > 65_535) {
        throw new IllegalArgumentException("prefetch must be within [1, 65535], was " + prefetch);
      }
      this.prefetch = prefetch;
      return this;
    }

    /** Deliveries per database transaction. Default 50; 1–1000, at most {@code prefetch}. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > 1000) {
        throw new IllegalArgumentException("batchSize must be within [1, 1000], was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /** After the first delivery, how long to wait for more to fill a batch. Default 20 ms; 0–1 s. */
    public Builder batchWait(Duration wait) {
      this.batchWait = Connections.within("batchWait", wait, Duration.ZERO, Duration.ofSeconds(1));
      return this;
    }

    /** Attempts and backoff for failing handlers. Default 5 attempts, 200 ms → 5 s, full jitter. */
    public Builder retryPolicy(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retryPolicy cannot be null");
      return this;
    }

    /** Wait between reconnection attempts. Default 1 s; 10 ms – 5 min. */
    public Builder reconnectBackoff(Duration backoff) {
      this.reconnectBackoff = Connections.within("reconnectBackoff", backoff, Duration.ofMillis(10),
          Duration.ofMinutes(5));
      return this;
    }

    /** The connection name (and consumer tag) the broker shows. Default {@code twinbox-inbox-<consumer>}. */
    public Builder connectionName(String name) {
      this.connectionName = Objects.requireNonNull(name, "connectionName cannot be null");
      return this;
    }

    public RabbitInboxConsumer build() {
      if (inbox == null || handler == null) {
        throw new IllegalArgumentException("inbox(...) and handler(...) are required");
      }
      if (batchSize > prefetch) {
        throw new IllegalArgumentException("batchSize (" + batchSize + ") must not exceed prefetch (" + prefetch
            + "): a batch could never fill");
      }
      factory.setAutomaticRecoveryEnabled(false); // this consumer reconnects itself, with a clean buffer
      factory.setTopologyRecoveryEnabled(false);
      return new RabbitInboxConsumer(this);
    }
  }
}
