package io.twinbox;

import io.twinbox.internal.DaemonThreads;
import io.twinbox.internal.Reasons;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old PUBLISHED outbox rows (completion mode MARK), old entries of the supplied-id ledger
 * and old inbox records on a schedule, in small batches with a pause between them, so that cleanup
 * never holds locks the relay or the writers wait for. FAILED rows and parked messages are kept
 * until an operator handles them.
 *
 * <p>Defaults and limits: {@link RetentionSettings}. Thread-safe; {@link #runOnce()} may also be
 * called directly (e.g. from a CLI).
 *
 * <p>The supplied-id ledger remembers message ids that writers chose themselves, so that a reused
 * one is refused at write instead of being dropped as a duplicate by every consumer's inbox. Once
 * an id has left every consumer's inbox (their retention), a reuse would be processed as new
 * anyway: keep the ledger at least as long as the longest inbox retention of the consumers.
 */
public final class Retention implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Retention.class);

  /** What one round deleted. */
  public record Result(long publishedEvents, long suppliedIds, long inboxRecords) {}

  private final OutboxAdminStore outbox;
  private final InboxStore inbox;
  private final Duration publishedAge;
  private final Duration suppliedIdAge;
  private final Duration inboxAge;
  private final int batch;
  private final Duration period;
  private ScheduledExecutorService scheduler;

  private Retention(Builder b) {
    this.outbox = b.outbox;
    this.inbox = b.inbox;
    this.publishedAge = b.publishedAge;
    this.suppliedIdAge = b.suppliedIdAge;
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
    long suppliedIds = 0;
    long inboxRecords = 0;
    if (outbox != null) {
      for (int n; (n = outbox.purgePublished(publishedAge, batch)) > 0; ) {
        published += n;
        pause();
      }
      for (int n; (n = outbox.purgeSuppliedIds(suppliedIdAge, batch)) > 0; ) {
        suppliedIds += n;
        pause();
      }
    }
    if (inbox != null) {
      for (int n; (n = inbox.purgeProcessed(inboxAge, batch)) > 0; ) {
        inboxRecords += n;
        pause();
      }
    }
    if (published + suppliedIds + inboxRecords > 0) {
      log.info("retention deleted {} published events, {} supplied ids and {} inbox records", published,
          suppliedIds, inboxRecords);
    }
    return new Result(published, suppliedIds, inboxRecords);
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
    scheduler = DaemonThreads.scheduler("twinbox-retention");
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
    private Duration publishedAge = RetentionSettings.PUBLISHED_AGE.defaultValue();
    private Duration suppliedIdAge = RetentionSettings.SUPPLIED_ID_RETENTION.defaultValue();
    private Duration inboxAge = RetentionSettings.INBOX_AGE.defaultValue();
    private int batch = RetentionSettings.BATCH_SIZE.defaultValue();
    private Duration period = RetentionSettings.PERIOD.defaultValue();

    Builder() {}

    /**
     * Purge PUBLISHED outbox rows older than {@code age} ({@link RetentionSettings#PUBLISHED_AGE}),
     * and the store's supplied-id ledger after {@link #suppliedIdRetention(Duration)}.
     */
    public Builder outbox(OutboxAdminStore store, Duration age) {
      this.outbox = Objects.requireNonNull(store, "store cannot be null");
      this.publishedAge = RetentionSettings.PUBLISHED_AGE.check(age);
      return this;
    }

    /**
     * How long a caller-chosen message id stays in the outbox's ledger, refusing its reuse ({@link
     * RetentionSettings#SUPPLIED_ID_RETENTION}, the inbox's default retention). Use at least the
     * longest inbox retention of the consumers: after it, a reused id would reach them as a new
     * message.
     */
    public Builder suppliedIdRetention(Duration age) {
      this.suppliedIdAge = RetentionSettings.SUPPLIED_ID_RETENTION.check(age);
      return this;
    }

    /**
     * Purge inbox records older than {@code age} ({@link RetentionSettings#INBOX_AGE}): use the retention the
     * {@link Inbox} was built with, which is validated against the redelivery horizon.
     */
    public Builder inbox(InboxStore store, Duration age) {
      this.inbox = Objects.requireNonNull(store, "store cannot be null");
      this.inboxAge = RetentionSettings.INBOX_AGE.check(age);
      return this;
    }

    /** Rows per delete statement ({@link RetentionSettings#BATCH_SIZE}). */
    public Builder batchSize(int batch) {
      this.batch = RetentionSettings.BATCH_SIZE.check(batch);
      return this;
    }

    /** Time between rounds ({@link RetentionSettings#PERIOD}). */
    public Builder period(Duration period) {
      this.period = RetentionSettings.PERIOD.check(period);
      return this;
    }

    public Retention build() {
      if (outbox == null && inbox == null) {
        throw new IllegalArgumentException("retention needs outbox(...) and/or inbox(...)");
      }
      return new Retention(this);
    }
  }
}
