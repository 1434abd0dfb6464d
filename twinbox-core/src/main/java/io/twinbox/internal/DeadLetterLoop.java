package io.twinbox.internal;

import io.twinbox.Relay.RelayConfig;
import io.twinbox.RelayListener;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PublishOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's dead-letter loop, one thread per relay whatever its mode or transport: claims rows
 * whose dead letter is pending (the completion that made them FAILED marked it so, in the same
 * update), publishes them to the {@link DeadLetterTransport} and marks the acknowledged ones sent.
 *
 * <p><b>At least once.</b> A dead letter is marked sent only after the destination acknowledged it;
 * a crash in between sends it again. <b>Apart from the main flow.</b> Its own thread, its own
 * back-off: a dead-letter destination that is down or refuses never delays the relay's workers, and
 * the pending dead letters go out once it is back. It claims only partitions this relay holds, so
 * two relays do not send the same dead letters (a hand-off may send one twice).
 *
 * <p>Thread-safe; started and stopped by its relay.
 */
public final class DeadLetterLoop {
  private static final Logger log = LoggerFactory.getLogger(DeadLetterLoop.class);
  private static final long BACKOFF_MIN_MS = 100;
  private static final long IDLE_MAX_MS = 1_000;
  private static final int BATCH = 100;

  private final OutboxStore store;
  private final DeadLetterTransport transport;
  private final RelayConfig config;
  private final RelayListener listener;
  private final Supplier<List<PartitionLease>> leases;
  private final Semaphore wakeUp = new Semaphore(0);
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean running;
  private Thread thread;

  /** @param leases the leases this relay may publish with right now */
  public DeadLetterLoop(OutboxStore store, DeadLetterTransport transport, RelayConfig config, RelayListener listener,
      Supplier<List<PartitionLease>> leases) {
    this.store = store;
    this.transport = transport;
    this.config = config;
    this.listener = listener;
    this.leases = leases;
  }

  public synchronized void start() {
    running = true;
    thread = new Thread(this::loop, "twinbox-dead-letters");
    thread.setDaemon(true);
    thread.start();
  }

  /** A row just went to FAILED: look for pending dead letters now. */
  public void wake() {
    if (wakeUp.availablePermits() == 0) {
      wakeUp.release();
    }
  }

  /** Dead letters acknowledged by the destination and marked sent. */
  public long sent() {
    return sent.get();
  }

  /** Dead-letter publishes that failed (each is sent again later). */
  public long failed() {
    return failed.get();
  }

  private void loop() {
    long backoff = 0;
    long idle = config.pollInterval().toMillis();
    while (running) {
      try {
        Round r = round();
        if (r.failures > 0) {
          backoff = Math.min(config.outageBackoffMax().toMillis(), Math.max(BACKOFF_MIN_MS, backoff * 2));
          pause(backoff, false);
        } else {
          backoff = 0;
          if (r.claimed >= BATCH) {
            continue;
          }
          idle = r.claimed > 0 ? config.pollInterval().toMillis() : Math.min(IDLE_MAX_MS, idle * 2);
          pause(idle, true);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        backoff = Math.min(config.outageBackoffMax().toMillis(), Math.max(BACKOFF_MIN_MS, backoff * 2));
        log.warn("relay {}: dead-letter round failed; retrying in {} ms: {}", config.nodeId(), backoff, Reasons.of(e));
        try {
          pause(backoff, false);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private record Round(int claimed, int failures) {}

  private Round round() throws InterruptedException {
    List<PartitionLease> mine = leases.get();
    if (mine.isEmpty()) {
      return new Round(0, 0);
    }
    List<DeadLetter> letters = store.claimDeadLetters(config.nodeId(), mine, BATCH);
    if (letters.isEmpty()) {
      return new Round(0, 0);
    }
    List<CompletableFuture<PublishOutcome>> futures = new ArrayList<>(letters.size());
    for (DeadLetter d : letters) {
      DeadLetter withSource = new DeadLetter(d.message().withSource(config.source()), d.reason(), d.attempts(),
          d.firstFailedAt(), d.lastFailedAt());
      CompletableFuture<PublishOutcome> f;
      try {
        f = transport.send(withSource);
      } catch (RuntimeException e) {
        f = CompletableFuture.completedFuture(PublishOutcome.unavailable(Reasons.of(e)));
      }
      futures.add(f);
    }
    long deadline = System.nanoTime() + config.publishTimeout().toNanos();
    List<Long> acked = new ArrayList<>(letters.size());
    List<DeadLetter> ackedLetters = new ArrayList<>(letters.size());
    int failures = 0;
    String firstReason = null;
    for (int i = 0; i < letters.size(); i++) {
      PublishOutcome o = await(futures.get(i), deadline);
      DeadLetter d = letters.get(i);
      if (o.kind() == PublishOutcome.Kind.ACKED) {
        acked.add(d.position());
        ackedLetters.add(d);
      } else {
        failures++;
        String reason = Reasons.clip(o.kind() + ": " + o.reason());
        if (firstReason == null) {
          firstReason = reason;
        }
        Listeners.relay(() -> listener.deadLetterFailed(d, reason));
      }
    }
    if (!acked.isEmpty()) {
      store.deadLettersSent(acked);
      sent.addAndGet(acked.size());
      for (DeadLetter d : ackedLetters) {
        Listeners.relay(() -> listener.deadLettered(d));
      }
    }
    if (failures > 0) {
      failed.addAndGet(failures);
      log.warn("relay {}: {} of {} dead letters not accepted by {} (kept pending, sent again later): {}",
          config.nodeId(), failures, letters.size(), transport.name(), firstReason);
    }
    return new Round(letters.size(), failures);
  }

  private PublishOutcome await(CompletableFuture<PublishOutcome> f, long deadline) throws InterruptedException {
    try {
      PublishOutcome o = f.get(Math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return o == null ? PublishOutcome.unavailable("transport returned no outcome") : o;
    } catch (TimeoutException e) {
      return PublishOutcome.unavailable("no acknowledgement within " + config.publishTimeout());
    } catch (ExecutionException e) {
      return PublishOutcome.unavailable(Reasons.of(e.getCause()));
    }
  }


  /** Waits; a wake-up ends the wait only when {@code wakeable} (not during a back-off). */
  private void pause(long millis, boolean wakeable) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long left;
    while (running && (left = end - System.nanoTime()) > 0) {
      if (wakeUp.tryAcquire(left, TimeUnit.NANOSECONDS) && wakeable) {
        break;
      }
    }
    wakeUp.drainPermits();
  }

  /** Stops the thread, letting a round in flight finish (bounded by the publish timeout). */
  public void close() {
    running = false;
    wakeUp.release();
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t == null) {
      return;
    }
    try {
      t.join(config.publishTimeout().toMillis() + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.info("relay {}: dead-letter loop stopped: {} sent, {} failed publishes", config.nodeId(), sent.get(),
        failed.get());
  }
}
