package io.twinbox;

import io.twinbox.internal.DaemonThreads;
import io.twinbox.internal.Reasons;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxAdminStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes old PUBLISHED outbox rows (completion mode MARK), old entries of the supplied-id ledger
 * and old inbox records on a schedule, in small batches with a pause between them, so that cleanup
 * never holds locks the relay or the writers wait for. FAILED rows and parked messages are never
 * deleted: they wait for an operator.
 *
 * <p><b>One runner at a time.</b> Each round first takes the {@link ExclusiveLock} called {@value
 * #LOCK_NAME} without waiting — the outbox store's (or else the inbox store's) when it is one, as
 * the JDBC store is (an advisory lock held on one connection for the round), else {@link
 * Builder#lock}. A round that cannot take it does nothing, logs so at debug level and tells the
 * listener ({@link RetentionListener#roundSkipped()}): every instance may schedule retention, and
 * only one deletes at a time.
 *
 * <p><b>The horizon rule.</b> An inbox age shorter than the redelivery horizon is refused at
 * {@link Builder#build()} ({@link InboxRetentionTooShortException}).
 *
 * <p><b>Archive mode</b> ({@link Builder#archive(boolean)}): PUBLISHED rows are moved to the
 * store's archive instead of deleted, batch by batch, each batch entirely or not at all ({@link
 * OutboxAdminStore#archivePublished}); a store without an archive fails the round. See
 * docs/retention.md, "Archive mode", for its measured cost.
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

  /** The name of the lock a round holds: one runner per database at a time. */
  public static final String LOCK_NAME = "twinbox_retention";

  /**
   * What one round deleted ({@code publishedEvents}: removed from the outbox, moved to the archive
   * in archive mode); {@code skipped} when another runner held the lock and the round did
   * nothing.
   */
  public record Result(long publishedEvents, long suppliedIds, long inboxRecords, boolean skipped) {
    /** The result of a round that was skipped. */
    public static final Result SKIPPED = new Result(0, 0, 0, true);

    /** A round that ran. */
    public Result(long publishedEvents, long suppliedIds, long inboxRecords) {
      this(publishedEvents, suppliedIds, inboxRecords, false);
    }
  }

  private final OutboxAdminStore outbox;
  private final InboxStore inbox;
  private final Duration publishedAge;
  private final boolean archive;
  private final Duration suppliedIdAge;
  private final Duration inboxAge;
  private final int batch;
  private final Duration pause;
  private final Duration period;
  private final ExclusiveLock lock;
  private final RetentionListener listener;
  private ScheduledExecutorService scheduler;

  private Retention(Builder b) {
    this.outbox = b.outbox;
    this.inbox = b.inbox;
    this.publishedAge = b.publishedAge;
    this.archive = b.archive;
    this.suppliedIdAge = b.suppliedIdAge;
    this.inboxAge = b.inboxAge;
    this.batch = b.batch;
    this.pause = b.pause;
    this.period = b.period;
    this.listener = b.listener;
    this.lock = b.lock != null ? b.lock
        : outbox instanceof ExclusiveLock l ? l
        : inbox instanceof ExclusiveLock l ? l
        : InProcessLock.INSTANCE;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Takes the retention lock, deletes everything due batch by batch, releases the lock and returns
   * the counts; returns {@link Result#SKIPPED} at once when another runner holds the lock.
   */
  public Result runOnce() {
    Optional<ExclusiveLock.Held> held = lock.tryLock(LOCK_NAME);
    if (held.isEmpty()) {
      log.debug("retention round skipped: another runner holds the lock {}", LOCK_NAME);
      listener.roundSkipped();
      return Result.SKIPPED;
    }
    long started = System.nanoTime();
    try (ExclusiveLock.Held ignored = held.get()) {
      long published = 0;
      long suppliedIds = 0;
      long inboxRecords = 0;
      // Each batch's age grows by the time the round has run, so that the cut-off stays where it was
      // when the round began: a round removes what was due then and ends, even while the relay marks
      // rows PUBLISHED faster than batches delete them (the next round takes the rest). Without it, a
      // round could chase the newest rows for ever and never reach the other kinds.
      if (outbox != null) {
        published = archive
            ? drain(RetentionListener.Kind.ARCHIVED_EVENTS,
                () -> outbox.archivePublished(sinceStart(publishedAge, started), batch))
            : drain(RetentionListener.Kind.PUBLISHED_EVENTS,
                () -> outbox.purgePublished(sinceStart(publishedAge, started), batch));
        suppliedIds = drain(RetentionListener.Kind.SUPPLIED_IDS,
            () -> outbox.purgeSuppliedIds(sinceStart(suppliedIdAge, started), batch));
      }
      if (inbox != null) {
        inboxRecords = drain(RetentionListener.Kind.INBOX_RECORDS,
            () -> inbox.purgeProcessed(sinceStart(inboxAge, started), batch));
      }
      if (published + suppliedIds + inboxRecords > 0) {
        log.info("retention {} {} published events, deleted {} supplied ids and {} inbox records",
            archive ? "archived" : "deleted", published, suppliedIds, inboxRecords);
      }
      Result result = new Result(published, suppliedIds, inboxRecords);
      listener.roundCompleted(result, Duration.ofNanos(System.nanoTime() - started));
      return result;
    }
  }

  /** {@code age} plus the time since {@code started} ({@link System#nanoTime()}): never younger than the age. */
  private static Duration sinceStart(Duration age, long started) {
    return age.plusNanos(Math.max(0, System.nanoTime() - started));
  }

  /** Deletes batch after batch until one comes back empty (or the thread is interrupted: closing). */
  private long drain(RetentionListener.Kind kind, IntSupplier purge) {
    long total = 0;
    for (int n; !Thread.currentThread().isInterrupted() && (n = purge.getAsInt()) > 0; ) {
      total += n;
      listener.deleted(kind, n);
      pause();
    }
    return total;
  }

  private void pause() {
    if (pause.isZero()) {
      return;
    }
    try {
      Thread.sleep(pause.toMillis()); // let writers and the relay in between batches
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs {@link #runOnce()} every period on a daemon thread, the first round one period after the start. */
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
        listener.roundFailed(e);
      }
    }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops the schedule: a round under way stops after its current statement and releases the lock. */
  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
      try {
        scheduler.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The period between rounds. */
  public Duration period() {
    return period;
  }

  /** For stores that are no {@link ExclusiveLock}: in-memory ones, which live in one process anyway. */
  private static final class InProcessLock implements ExclusiveLock {
    static final InProcessLock INSTANCE = new InProcessLock();
    private final Set<String> held = ConcurrentHashMap.newKeySet();

    @Override
    public Optional<Held> tryLock(String name) {
      if (!held.add(name)) {
        return Optional.empty();
      }
      return Optional.of(new Held() {
        private boolean released;

        @Override
        public synchronized void close() {
          if (!released) {
            released = true;
            held.remove(name);
          }
        }
      });
    }
  }

  /** Configures {@link Retention}. Not thread-safe. */
  public static final class Builder {
    private OutboxAdminStore outbox;
    private InboxStore inbox;
    private Duration publishedAge = RetentionSettings.PUBLISHED_AGE.defaultValue();
    private boolean archive = RetentionSettings.ARCHIVE.defaultValue();
    private Duration suppliedIdAge = RetentionSettings.SUPPLIED_ID_RETENTION.defaultValue();
    private Duration inboxAge = RetentionSettings.INBOX_AGE.defaultValue();
    private Duration redeliveryHorizon = RetentionSettings.REDELIVERY_HORIZON.defaultValue();
    private int batch = RetentionSettings.BATCH_SIZE.defaultValue();
    private Duration pause = RetentionSettings.PAUSE.defaultValue();
    private Duration period = RetentionSettings.PERIOD.defaultValue();
    private ExclusiveLock lock;
    private RetentionListener listener = RetentionListener.NONE;

    Builder() {}

    /**
     * Purge PUBLISHED outbox rows older than {@code age} ({@link RetentionSettings#PUBLISHED_AGE}),
     * and the store's supplied-id ledger after {@link #suppliedIdRetention(Duration)}. FAILED and
     * pending rows are never deleted.
     */
    public Builder outbox(OutboxAdminStore store, Duration age) {
      this.outbox = Objects.requireNonNull(store, "store cannot be null");
      this.publishedAge = RetentionSettings.PUBLISHED_AGE.check(age);
      return this;
    }

    /**
     * Archive mode ({@link RetentionSettings#ARCHIVE}): due PUBLISHED rows are moved to the
     * store's archive ({@link OutboxAdminStore#archivePublished}) instead of deleted, each batch
     * entirely or not at all. The ledger and inbox records are still deleted.
     */
    public Builder archive(boolean archive) {
      this.archive = archive;
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
     * Purge inbox records older than {@code age} ({@link RetentionSettings#INBOX_AGE}): use the
     * retention the {@link Inbox} was built with. At least {@link #redeliveryHorizon}, checked by
     * {@link #build()}. Parked messages are never deleted.
     */
    public Builder inbox(InboxStore store, Duration age) {
      this.inbox = Objects.requireNonNull(store, "store cannot be null");
      this.inboxAge = RetentionSettings.INBOX_AGE.check(age);
      return this;
    }

    /**
     * The longest time the broker may redeliver a message ({@link
     * RetentionSettings#REDELIVERY_HORIZON}): the shortest inbox age {@link #build()} accepts.
     */
    public Builder redeliveryHorizon(Duration horizon) {
      this.redeliveryHorizon = RetentionSettings.REDELIVERY_HORIZON.check(horizon);
      return this;
    }

    /** Rows per delete statement ({@link RetentionSettings#BATCH_SIZE}). */
    public Builder batchSize(int batch) {
      this.batch = RetentionSettings.BATCH_SIZE.check(batch);
      return this;
    }

    /** Pause between two delete statements ({@link RetentionSettings#PAUSE}). */
    public Builder pause(Duration pause) {
      this.pause = RetentionSettings.PAUSE.check(pause);
      return this;
    }

    /** Time between rounds ({@link RetentionSettings#PERIOD}). */
    public Builder period(Duration period) {
      this.period = RetentionSettings.PERIOD.check(period);
      return this;
    }

    /**
     * The lock that keeps rounds to one runner at a time. Default: the outbox store's (else the
     * inbox store's) when it is an {@link ExclusiveLock}, as the JDBC store is; else a lock within
     * this process.
     */
    public Builder lock(ExclusiveLock lock) {
      this.lock = Objects.requireNonNull(lock, "lock cannot be null");
      return this;
    }

    public Builder listener(RetentionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener cannot be null");
      return this;
    }

    /**
     * @throws InboxRetentionTooShortException when the inbox age is shorter than the redelivery horizon
     * @throws IllegalArgumentException when neither store is given
     */
    public Retention build() {
      if (outbox == null && inbox == null) {
        throw new IllegalArgumentException("retention needs outbox(...) and/or inbox(...)");
      }
      if (inbox != null && inboxAge.compareTo(redeliveryHorizon) < 0) {
        throw new InboxRetentionTooShortException(RetentionSettings.INBOX_AGE.name(), inboxAge,
            RetentionSettings.REDELIVERY_HORIZON.name(), redeliveryHorizon);
      }
      if (archive && outbox != null && !outbox.hasArchive()) {
        throw new IllegalArgumentException(RetentionSettings.ARCHIVE.name() + " is on, but "
            + outbox.getClass().getSimpleName() + " has no archive (a partitioned outbox keeps detached partitions"
            + " instead; other stores need the archive migration): turn " + RetentionSettings.ARCHIVE.name() + " off");
      }
      return new Retention(this);
    }
  }
}
