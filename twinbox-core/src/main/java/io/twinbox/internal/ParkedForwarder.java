package io.twinbox.internal;

import io.twinbox.Inbox;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PublishOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer side of dead letters: one thread per {@code InboxConsumer} that forwards the
 * consumer's parked messages not yet forwarded to a {@link DeadLetterTransport} and marks each one
 * forwarded once acknowledged — at least once (a crash in between forwards it again), never losing
 * the parked row, which stays parked for the operator's replay or discard. Its own thread and
 * back-off: a dead-letter outage never holds the consumer back. Thread-safe.
 */
public final class ParkedForwarder {
  private static final Logger log = LoggerFactory.getLogger(ParkedForwarder.class);
  private static final int BATCH = 100;
  private static final long IDLE_MS = 500;
  private static final long BACKOFF_MAX_MS = 10_000;
  private static final long ACK_WAIT_MS = 30_000;

  private final InboxStore store;
  private final String consumer;
  private final DeadLetterTransport transport;
  private final io.twinbox.InboxListener listener;
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean running;
  private Thread thread;

  public ParkedForwarder(Inbox inbox, DeadLetterTransport transport) {
    InboxEngine engine = InboxEngine.of(inbox);
    this.store = engine.store();
    if (!store.forwardsParked()) {
      throw new IllegalArgumentException("deadLetters needs an inbox store that forwards parked messages; "
          + store.getClass().getSimpleName() + " does not");
    }
    this.consumer = engine.consumer();
    this.transport = transport;
    this.listener = engine.listener();
  }

  public synchronized void start() {
    running = true;
    thread = new Thread(this::loop, "twinbox-parked-forwarder-" + consumer);
    thread.setDaemon(true);
    thread.start();
  }

  /** Parked messages forwarded and acknowledged. */
  public long forwarded() {
    return forwarded.get();
  }

  /** Forwards that failed (each is tried again later). */
  public long failed() {
    return failed.get();
  }

  private void loop() {
    long backoff = 0;
    while (running) {
      try {
        int failures = round();
        backoff = failures == 0 ? 0 : Math.min(BACKOFF_MAX_MS, Math.max(100, backoff * 2));
        sleep(failures == 0 ? IDLE_MS : backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        backoff = Math.min(BACKOFF_MAX_MS, Math.max(100, backoff * 2));
        log.warn("consumer {}: forwarding parked messages failed; retrying in {} ms: {}", consumer, backoff,
            Reasons.of(e));
        try {
          sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private int round() throws InterruptedException {
    List<ParkedLetter> letters = store.unforwardedParked(consumer, BATCH);
    if (letters.isEmpty()) {
      return 0;
    }
    List<CompletableFuture<PublishOutcome>> futures = new ArrayList<>(letters.size());
    for (ParkedLetter p : letters) {
      try {
        futures.add(transport.forward(p));
      } catch (RuntimeException e) {
        futures.add(CompletableFuture.completedFuture(PublishOutcome.unavailable(Reasons.of(e))));
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACK_WAIT_MS);
    List<Long> done = new ArrayList<>();
    int failures = 0;
    String reason = null;
    for (int i = 0; i < letters.size(); i++) {
      PublishOutcome o = await(futures.get(i), deadline);
      ParkedLetter p = letters.get(i);
      if (o.kind() == PublishOutcome.Kind.ACKED) {
        done.add(p.row());
        Listeners.inbox(() -> listener.parkedForwarded(p));
      } else {
        failures++;
        String why = Reasons.clip(o.kind() + ": " + o.reason());
        reason = reason != null ? reason : why;
        Listeners.inbox(() -> listener.parkedForwardFailed(p, why));
      }
    }
    if (!done.isEmpty()) {
      store.parkedForwarded(done);
      forwarded.addAndGet(done.size());
    }
    if (failures > 0) {
      failed.addAndGet(failures);
      log.warn("consumer {}: {} of {} parked messages not accepted by {} (forwarded again later): {}", consumer,
          failures, letters.size(), transport.name(), reason);
    }
    return failures;
  }

  private static PublishOutcome await(CompletableFuture<PublishOutcome> f, long deadline) throws InterruptedException {
    try {
      PublishOutcome o = f.get(Math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return o == null ? PublishOutcome.unavailable("transport returned no outcome") : o;
    } catch (TimeoutException e) {
      return PublishOutcome.unavailable("no acknowledgement within " + ACK_WAIT_MS + " ms");
    } catch (ExecutionException e) {
      return PublishOutcome.unavailable(Reasons.of(e.getCause()));
    }
  }


  private void sleep(long millis) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (running && System.nanoTime() - end < 0) {
      Thread.sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
    }
  }

  public void close() {
    running = false;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      try {
        t.join(ACK_WAIT_MS + 5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
