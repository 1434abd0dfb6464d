package io.twinbox;

import io.twinbox.internal.Reasons;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old PUBLISHED outbox rows (completion mode MARK) and old inbox records on a schedule, in
 * small batches with a pause between them, so that cleanup never holds locks the relay or the
 * writers wait for. FAILED rows and parked messages are kept until an operator handles them.
 *
 * <p>Defaults: published events kept 30 days, inbox records 90 days, batches of 500, a round every
 * 10 minutes. Thread-safe; {@link #runOnce()} may also be called directly (e.g. from a CLI).
 */
public final class Retention implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Retention.class);

  /** What one round deleted. */
  public record Result(long publishedEvents, long inboxRecords) {}

  private final OutboxAdminStore outbox;
  private final InboxStore inbox;
  private final Duration publishedAge;
  private final Duration inboxAge;
  private final int batch;
  private final Duration period;
  private ScheduledExecutorService scheduler;

  private Retention(Builder b) {
    this.outbox = b.outbox;
    this.inbox = b.inbox;
    this.publishedAge = b.publishedAge;
    this.inboxAge = b.inboxAge;
    this.batch = b.batch;
    this.period = b.period;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Deletes everything due, batch by batch, and returns the counts. */
  public Result runOnce() {
    long published = 0;
    long inboxRecords = 0;
    if (outbox != null) {
      for (int n; (n = outbox.purgePublished(publishedAge, batch)) > 0; ) {
        published += n;
        pause();
      }
    }
    if (inbox != null) {
      for (int n; (n = inbox.purgeProcessed(inboxAge, batch)) > 0; ) {
        inboxRecords += n;
        pause();
      }
    }
    if (published + inboxRecords > 0) {
      log.info("retention deleted {} published events and {} inbox records", published, inboxRecords);
    }
    return new Result(published, inboxRecords);
  }

  private static void pause() {
    try {
      Thread.sleep(20); // let writers and the relay in between batches
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs {@link #runOnce()} every period on a daemon thread. */
  public synchronized void start() {
    if (scheduler != null) {
      throw new IllegalStateException("retention already started");
    }
    scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "twinbox-retention");
      t.setDaemon(true);
      return t;
    });
    scheduler.scheduleWithFixedDelay(() -> {
      try {
        runOnce();
      } catch (RuntimeException e) {
        log.warn("retention round failed; next round in {}: {}", period, Reasons.of(e));
      }
    }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /** Configures {@link Retention}. Not thread-safe. */
  public static final class Builder {
    private OutboxAdminStore outbox;
    private InboxStore inbox;
    private Duration publishedAge = Duration.ofDays(30);
    private Duration inboxAge = Duration.ofDays(90);
    private int batch = 500;
    private Duration period = Duration.ofMinutes(10);

    Builder() {}

    /** Purge PUBLISHED outbox rows older than {@code age} (default 30 days). */
    public Builder outbox(OutboxAdminStore store, Duration age) {
      this.outbox = Objects.requireNonNull(store, "store cannot be null");
      this.publishedAge = positive("publishedAge", age);
      return this;
    }

    /**
     * Purge inbox records older than {@code age} (default 90 days): use the retention the
     * {@link Inbox} was built with, which is validated against the redelivery horizon.
     */
    public Builder inbox(InboxStore store, Duration age) {
      this.inbox = Objects.requireNonNull(store, "store cannot be null");
      this.inboxAge = positive("inboxAge", age);
      return this;
    }

    /** Rows per delete statement, 1–10,000. Default 500. */
    public Builder batchSize(int batch) {
      if (batch < 1 || batch > 10_000) {
        throw new IllegalArgumentException("batchSize must be within [1, 10000], was " + batch);
      }
      this.batch = batch;
      return this;
    }

    /** Time between rounds. Default 10 minutes. */
    public Builder period(Duration period) {
      this.period = positive("period", period);
      return this;
    }

    public Retention build() {
      if (outbox == null && inbox == null) {
        throw new IllegalArgumentException("retention needs outbox(...) and/or inbox(...)");
      }
      return new Retention(this);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name + " cannot be null");
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
      return d;
    }
  }
}
