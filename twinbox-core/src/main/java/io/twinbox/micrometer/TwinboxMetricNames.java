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
  /** Timer: commit (row creation) to broker acknowledgement. */
  public static final String RELAY_PUBLISH_LATENCY = "twinbox.relay.publish.latency";
  /** Counter: waves that met an unavailable broker (no attempt used). */
  public static final String RELAY_OUTAGES = "twinbox.relay.outages";
  /** Counter, tags {@code consumer}, {@code outcome=processed|duplicate|parked}. */
  public static final String INBOX_MESSAGES = "twinbox.inbox.messages";
}
