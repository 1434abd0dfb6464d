package io.twinbox.nats.internal;

import io.nats.client.ConsumeOptions;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusCheckedException;
import io.nats.client.Message;
import io.nats.client.api.ConsumerConfiguration;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JetStream durable pull consumer as a {@link MessageSource}: created or updated at the first
 * fetch; a fetch takes up to {@code batchSize} messages, waiting at most {@code batchWait} for more
 * after the first. Settling acks each committed message and terminates ({@code term()}) each
 * parked one; what is given back, or fetched but not done on close, is nak'd so that it comes back
 * at once rather than after {@code ackWait}. A failed pull re-subscribes.
 */
public final class NatsSource implements MessageSource {
  private static final Logger log = LoggerFactory.getLogger(NatsSource.class);

  private final ConnectionHolder connection;
  private final String stream;
  private final ConsumerConfiguration consumerConfig;
  private final int batchSize;
  private final long batchWaitNanos;
  private final AtomicLong subscriptions = new AtomicLong();
  private final AtomicLong terminated = new AtomicLong();
  private IterableConsumer source;
  private List<Message> current = List.of();
  /** Sends the acks of what is settled, in order; made at the first settle. */
  private ExecutorService acker;

  public NatsSource(ConnectionHolder connection, String stream, ConsumerConfiguration consumerConfig, int batchSize,
      Duration batchWait) {
    this.connection = connection;
    this.stream = stream;
    this.consumerConfig = consumerConfig;
    this.batchSize = batchSize;
    this.batchWaitNanos = batchWait.toNanos();
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (source == null) {
      source = subscribe();
      return List.of();
    }
    List<Message> batch = new ArrayList<>(batchSize);
    try {
      Message first = source.nextMessage(Duration.ofMillis(200));
      if (first == null) {
        return List.of();
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
      log.warn("consumer {}: pull failed ({}); re-subscribing", consumerConfig.getDurable(), e.toString());
      nakAll(batch);
      stop(source);
      source = null;
      return List.of();
    }
    current = batch;
    List<ReceivedMessage> out = new ArrayList<>(batch.size());
    for (Message m : batch) {
      out.add(ReceivedMessage.of(NatsCloudEvents.decode(m), m.isJetStream() && m.metaData().deliveredCount() > 1));
    }
    return out;
  }

  private IterableConsumer subscribe() throws InterruptedException {
    try {
      IterableConsumer c = connection.acquire().getStreamContext(stream).createOrUpdateConsumer(consumerConfig)
          .iterate(ConsumeOptions.builder().batchSize(batchSize).build());
      subscriptions.incrementAndGet();
      return c;
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      log.warn("consumer {}: cannot bind the durable consumer on stream {}: {}; retrying in 1 s",
          consumerConfig.getDurable(), stream, e.toString());
      Thread.sleep(1_000);
      return null;
    }
  }

  /**
   * After the commit: term() what was parked, here; ack() everything else on the acker's thread, so
   * that the consumer's thread goes on to the next transaction instead of writing one ack per
   * message. An ack lost on the way is a redelivery, which the inbox skips.
   */
  @Override
  public void settle(int from, int to, IntPredicate parked) {
    List<Message> acks = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      Message m = current.get(i);
      if (!parked.test(i)) {
        acks.add(m);
        continue;
      }
      try {
        m.term();
        terminated.incrementAndGet();
      } catch (RuntimeException e) {
        ackFailed(e);
      }
    }
    if (!acks.isEmpty()) {
      acker().execute(() -> ackAll(acks));
    }
  }

  private void ackAll(List<Message> acks) {
    for (Message m : acks) {
      try {
        m.ack();
      } catch (RuntimeException e) {
        ackFailed(e);
        return; // the connection is gone: the rest is redelivered after ackWait
      }
    }
  }

  private void ackFailed(RuntimeException e) {
    log.warn("consumer {}: ack failed; the message will be redelivered and skipped as a duplicate: {}",
        consumerConfig.getDurable(), e.toString());
  }

  private ExecutorService acker() {
    if (acker == null) {
      acker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "twinbox-nats-ack-" + consumerConfig.getDurable());
        t.setDaemon(true);
        return t;
      });
    }
    return acker;
  }

  /** Sends the acks still queued; at most 5 s. */
  private void flushAcks() {
    if (acker == null) {
      return;
    }
    acker.shutdown();
    try {
      if (!acker.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("consumer {}: acks not sent within 5 s; those messages will be redelivered and skipped",
            consumerConfig.getDurable());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    acker = null;
  }

  @Override
  public void giveBack(int done) {
    nakAll(current.subList(done, current.size()));
  }

  private static void nakAll(List<Message> messages) {
    for (Message m : messages) {
      try {
        m.nak();
      } catch (RuntimeException e) {
        return; // the connection is gone: the server redelivers after ackWait
      }
    }
  }

  @Override
  public long sessions() {
    return subscriptions.get();
  }

  @Override
  public long terminated() {
    return terminated.get();
  }

  /** Stops pulling, gives back what was already fetched, closes the connection if this source opened it. */
  @Override
  public void close() {
    flushAcks();
    if (source != null) {
      drainAndStop(source);
    }
    connection.close(); // only if this consumer opened it
  }

  private void drainAndStop(IterableConsumer c) {
    try {
      c.stop();
      for (Message m = c.nextMessage(50); m != null; m = c.nextMessage(50)) {
        nakAll(List.of(m));
      }
    } catch (JetStreamStatusCheckedException | RuntimeException e) {
      log.debug("consumer {}: draining on stop: {}", consumerConfig.getDurable(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stop(c);
  }

  private static void stop(IterableConsumer c) {
    try {
      c.close();
    } catch (Exception e) {
      // Closing a consumer of a dead connection fails; there is nothing left to release.
    }
  }
}
