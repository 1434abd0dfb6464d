package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.rabbitmq.internal.ConsumerSession.Received;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ queue as a {@link MessageSource}: one connection and channel with a prefetch limit
 * ({@link ConsumerSession}); a fetch takes up to {@code batchSize} deliveries, waiting at most
 * {@code batchWait} for more after the first; settling acknowledges up to the last committed
 * delivery ({@code basic.ack}, multiple). A lost connection is re-established after {@code
 * reconnectBackoff} with an empty buffer: deliveries of a dead channel are redelivered by the
 * broker. Unacknowledged deliveries go back to the queue when the channel closes.
 */
public final class RabbitSource implements MessageSource {
  private static final Logger log = LoggerFactory.getLogger(RabbitSource.class);

  private final ConnectionFactory factory;
  private final String queue;
  private final String connectionName;
  private final int prefetch;
  private final int batchSize;
  private final long batchWaitNanos;
  private final Duration reconnectBackoff;
  private final BlockingQueue<Received> buffer = new LinkedBlockingQueue<>();
  private final AtomicLong connections = new AtomicLong();
  private ConsumerSession session;
  private List<Received> current = List.of();

  public RabbitSource(ConnectionFactory factory, String queue, String connectionName, int prefetch, int batchSize,
      Duration batchWait, Duration reconnectBackoff) {
    this.factory = factory;
    this.queue = queue;
    this.connectionName = connectionName;
    this.prefetch = prefetch;
    this.batchSize = batchSize;
    this.batchWaitNanos = batchWait.toNanos();
    this.reconnectBackoff = reconnectBackoff;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (session == null || !session.isOpen()) {
      session = reconnect(session);
      return List.of();
    }
    Received first = buffer.poll(200, TimeUnit.MILLISECONDS);
    if (first == null) {
      return List.of();
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
    ConsumerSession open = session;
    batch.removeIf(r -> r.session() != open); // from a dead channel: the broker redelivers them
    current = batch;
    List<ReceivedMessage> out = new ArrayList<>(batch.size());
    for (Received r : batch) {
      out.add(r.decode(queue));
    }
    return out;
  }

  private ConsumerSession reconnect(ConsumerSession old) throws InterruptedException {
    if (old != null) {
      old.close();
      buffer.clear();
      log.warn("consumer {}: connection to queue {} lost; reconnecting", connectionName, queue);
    }
    try {
      ConsumerSession s = ConsumerSession.open(factory, connectionName, queue, prefetch, buffer);
      connections.incrementAndGet();
      return s;
    } catch (IOException | TimeoutException | RuntimeException e) {
      log.warn("consumer {}: cannot consume queue {} on {}:{}: {}; retrying in {}", connectionName, queue,
          factory.getHost(), factory.getPort(), ConfirmLink.describe(e), reconnectBackoff);
      Thread.sleep(Math.max(10, reconnectBackoff.toMillis()));
      return null;
    }
  }

  @Override
  public void settle(int from, int to, IntPredicate parked) {
    Received last = current.get(to - 1);
    try {
      last.session().ackUpTo(last.envelope().getDeliveryTag()); // only after the database commit
    } catch (IOException | AlreadyClosedException e) {
      log.warn("consumer {}: ack failed; the messages will be redelivered and skipped as duplicates: {}",
          connectionName, ConfirmLink.describe(e));
    }
  }

  /** Nothing to do: closing the channel requeues every unacknowledged delivery. */
  @Override
  public void giveBack(int done) {}

  @Override
  public long sessions() {
    return connections.get();
  }

  @Override
  public void close() {
    if (session != null) {
      session.close(); // unacknowledged deliveries go back to the queue
    }
  }
}
