package io.twinbox;

import java.time.Instant;

/**
 * One line of a parked message's audit trail, kept in the database: who did what to it, and when.
 *
 * @param parkedId the parked row
 * @param consumer its consumer
 * @param messageId its message id
 * @param action {@code REPLAY_REQUESTED}, {@code REPLAYED}, {@code REPLAYED_NOOP} (applied before),
 *     {@code REPLAY_FAILED} or {@code DISCARDED}
 * @param actor the operator, or {@code consumer:<name>}
 * @param at when (store clock)
 * @param detail the failure reason of a failed replay, else {@code null}
 */
public record ParkedAudit(long parkedId, String consumer, String messageId, String action, String actor, Instant at,
    String detail) {
  public static final String REPLAY_REQUESTED = "REPLAY_REQUESTED";
  public static final String REPLAYED = "REPLAYED";
  public static final String REPLAYED_NOOP = "REPLAYED_NOOP";
  public static final String REPLAY_FAILED = "REPLAY_FAILED";
  public static final String DISCARDED = "DISCARDED";
}
