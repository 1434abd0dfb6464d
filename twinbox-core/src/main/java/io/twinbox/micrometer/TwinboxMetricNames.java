package io.twinbox.micrometer;

/**
 * The names of Twinbox's meters: few names, many tags. Public constants so that dashboards and
 * alert rules can refer to them; Prometheus renders dots as underscores and adds unit suffixes
 * (e.g. {@code twinbox_outbox_pending}, {@code twinbox_relay_publish_latency_seconds}).
 */
public final class TwinboxMetricNames {
  private TwinboxMetricNames() {}

  /** Gauge: rows waiting to be published. */
  public static final String OUTBOX_PENDING = "twinbox.outbox.pending";
  /** Gauge: pending rows waiting for a retry after a failed attempt. */
  public static final String OUTBOX_RETRYING = "twinbox.outbox.retrying";
  /** Gauge: rows in FAILED (the dead-letter count). */
  public static final String OUTBOX_FAILED = "twinbox.outbox.failed";
  /** Gauge: aggregates held back by a FAILED or retrying row. */
  public static final String OUTBOX_HELD_AGGREGATES = "twinbox.outbox.held.aggregates";
  /** Time gauge: age of the oldest pending row, on the database clock. */
  public static final String OUTBOX_OLDEST_AGE = "twinbox.outbox.oldest.age";
  /** Gauge: partitions held by no live relay. */
  public static final String RELAY_UNOWNED_PARTITIONS = "twinbox.relay.partitions.unowned";
  /** Gauge: partitions this relay holds. */
  public static final String RELAY_PARTITIONS = "twinbox.relay.partitions";
  /** Counter, tag {@code outcome=published|retry|dead|fenced}: publish outcomes. */
  public static final String RELAY_PUBLISH = "twinbox.relay.publish";
  /**
   * Counter: claimed rows that could not be decoded into a message (plain-SQL rows breaking the
   * write rules) and were moved to FAILED without a publish; also counted as {@code
   * publish{outcome=dead}}.
   */
  /** Dead letters published (outcome=published) or refused (outcome=failed, sent again later), by relay. */
  public static final String RELAY_DEAD_LETTERS = "twinbox.relay.dead.letters";
  /** Parked messages forwarded to the dead-letter destination (outcome=forwarded|failed), by consumer. */
  public static final String INBOX_DEAD_LETTERS = "twinbox.inbox.dead.letters";
  public static final String RELAY_UNDECODABLE = "twinbox.relay.undecodable";
  /** Timer: commit (row creation) to broker acknowledgement. */
  public static final String RELAY_PUBLISH_LATENCY = "twinbox.relay.publish.latency";
  /** Counter: waves that met an unavailable broker (no attempt used). */
  public static final String RELAY_OUTAGES = "twinbox.relay.outages";
  /** Gauge (WAL relay): WAL the server keeps beyond the slot's confirmed position, in bytes. */
  public static final String RELAY_SLOT_LAG_BYTES = "twinbox.relay.slot.lag.bytes";
  /** Time gauge (WAL relay): age of the oldest received transaction not yet confirmed. */
  public static final String RELAY_SLOT_LAG = "twinbox.relay.slot.lag";
  /** Gauge (WAL relay): the slot's confirmed position, as a 64-bit LSN. */
  public static final String RELAY_SLOT_CONFIRMED_LSN = "twinbox.relay.slot.confirmed.lsn";
  /** Time gauge (WAL relay): time since the confirmed position last moved forward. */
  public static final String RELAY_SLOT_SINCE_CONFIRM = "twinbox.relay.slot.since.confirm";
  /**
   * Gauge (WAL relay): 1 once the replication slot was lost (invalidated or dropped) and the relay
   * stopped streaming, 0 while it streams; no value before the first slot status.
   */
  public static final String RELAY_SLOT_LOST = "twinbox.relay.slot.lost";
  /** Counter, tags {@code consumer}, {@code outcome=processed|duplicate|parked}. */
  public static final String INBOX_MESSAGES = "twinbox.inbox.messages";
  /**
   * Counter, tag {@code consumer}: parks the database refused (unreachable, or not even the
   * minimal row stored). Each is retried; meanwhile the message's partition or queue waits.
   */
  public static final String INBOX_PARK_FAILURES = "twinbox.inbox.park.failures";
  /**
   * Gauge, tag {@code consumer} ({@link ParkedMetrics}): parked messages waiting for an operator or
   * a replay (states {@code PARKED} and {@code REPLAYING}).
   */
  public static final String INBOX_PARKED = "twinbox.inbox.parked";
  /** Time gauge, tag {@code consumer}: age of the oldest of those, on the database clock (0 when none). */
  public static final String INBOX_PARKED_OLDEST_AGE = "twinbox.inbox.parked.oldest.age";
  /**
   * Timer, tags {@code consumer}, {@code since=received|event} (R18): from the consumer's receipt of
   * a message ({@code received}) or from the event's own {@code time} ({@code event}, end to end,
   * across the producer's and consumer's clocks) to the commit of the transaction that brought it to
   * its end.
   */
  public static final String INBOX_COMMIT_LATENCY = "twinbox.inbox.commit.latency";
  /**
   * Counter, tag {@code kind=published.events|supplied.ids|inbox.records} ({@link RetentionMetrics}):
   * rows deleted by {@link io.twinbox.Retention}.
   */
  public static final String RETENTION_DELETED = "twinbox.retention.deleted";
  /**
   * Counter, tag {@code outcome=completed|skipped|failed}: retention rounds; {@code skipped} when
   * another runner held the retention lock.
   */
  public static final String RETENTION_ROUNDS = "twinbox.retention.rounds";
  /** Time gauge: duration of the last completed retention round. */
  public static final String RETENTION_LAST_ROUND_DURATION = "twinbox.retention.last.round.duration";
}
