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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JetStream durable pull consumer as a {@link MessageSource}: created or updated at the first
 * fetch by a reader thread of the source's own, which pulls and decodes ahead into a buffer of one
 * batch while the consumer's thread runs its transactions; a fetch takes up to {@code batchSize}
 * messages from it, waiting at most {@code batchWait} for more after the first. Settling acks each committed message and terminates ({@code term()}) each
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
  private final BlockingQueue<Pulled> buffer;
  /** The reader's subscription, for close once the reader stopped. */
  private volatile IterableConsumer source;
  private volatile boolean reading = true;
  private Thread reader;
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
    this.buffer = new ArrayBlockingQueue<>(batchSize);
  }

  @Override
  public String name() {
    return "nats";
  }

  /** A pulled message, decoded on the reader's thread. */
  private record Pulled(Message message, ReceivedMessage decoded) {}

  /**
   * The next messages, read and decoded by the reader's thread while the consumer's thread ran its
   * previous transaction: up to {@code batchSize}, waiting at most {@code batchWait} for more after
   * the first.
   */
  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (reader == null) {
      reader = new Thread(this::read, "twinbox-nats-read-" + consumerConfig.getDurable());
      reader.setDaemon(true);
      reader.start();
    }
    Pulled first = buffer.poll(200, TimeUnit.MILLISECONDS);
    if (first == null) {
      return List.of();
    }
    List<Pulled> batch = new ArrayList<>(batchSize);
    batch.add(first);
    long deadline = System.nanoTime() + batchWaitNanos;
    while (batch.size() < batchSize) {
      long wait = deadline - System.nanoTime();
      Pulled p = wait > 0 ? buffer.poll(wait, TimeUnit.NANOSECONDS) : buffer.poll();
      if (p == null) {
        break;
      }
      batch.add(p);
    }
    List<Message> messages = new ArrayList<>(batch.size());
    List<ReceivedMessage> out = new ArrayList<>(batch.size());
    for (Pulled p : batch) {
      messages.add(p.message());
      out.add(p.decoded());
    }
    current = messages;
    return out;
  }

  /**
   * The reader's loop: subscribes (again after a failed pull), pulls and decodes into the buffer,
   * which holds at most one batch, so that no more than the pull consumer's batch and one more wait
   * for the consumer. Until {@link #close}.
   */
  private void read() {
    IterableConsumer c = null;
    try {
      while (reading) {
        if (c == null) {
          c = subscribe();
          source = c;
          continue;
        }
        Message m;
        try {
          m = c.nextMessage(Duration.ofMillis(200));
        } catch (JetStreamStatusCheckedException | IllegalStateException e) {
          log.warn("consumer {}: pull failed ({}); re-subscribing", consumerConfig.getDurable(), e.toString());
          stop(c);
          c = null;
          source = null;
          continue;
        }
        if (m != null) {
          Pulled p = new Pulled(m, ReceivedMessage.of(NatsCloudEvents.decode(m),
              m.isJetStream() && m.metaData().deliveredCount() > 1));
          try {
            buffer.put(p);
          } catch (InterruptedException e) {
            nakAll(List.of(m)); // pulled, never handed out: back at once
            throw e;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // close() wants the reader to stop
    } catch (RuntimeException e) {
      log.error("consumer {}: the reader stopped: {}", consumerConfig.getDurable(), e.toString(), e);
    }
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
    stopReader();
    List<Pulled> unread = new ArrayList<>();
    buffer.drainTo(unread);
    nakAll(unread.stream().map(Pulled::message).toList());
    IterableConsumer c = source;
    if (c != null) {
      drainAndStop(c);
    }
    connection.close(); // only if this consumer opened it
  }

  /** Stops the reader; what it pulled and did not hand out is nak'd by the caller. */
  private void stopReader() {
    reading = false;
    Thread r = reader;
    if (r == null) {
      return;
    }
    r.interrupt();
    try {
      r.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
