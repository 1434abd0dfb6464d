package io.twinbox.internal;

import java.util.Map;

/**
 * The column limits of the inbox's tables ({@code V2__inbox.sql} of each dialect), declared once:
 * parking clips to them, and the store contract checks them against the live schema. Lengths are
 * in characters (PostgreSQL {@code varchar(n)}, MariaDB {@code VARCHAR(n)} in {@code utf8mb4}),
 * except {@link #HEADERS_BYTES}.
 */
public final class InboxColumns {
  private InboxColumns() {}

  /** {@code consumer} and {@code message_id} of every inbox table. */
  public static final int ID = 255;
  /** The text attributes of {@code twinbox_inbox_parked}. */
  public static final int ATTRIBUTE = 255;
  /** {@code twinbox_inbox_parked.traceparent}: a W3C traceparent is 55 characters. */
  public static final int TRACEPARENT = 55;
  /** {@code twinbox_inbox_parked.reason} and {@code twinbox_inbox_attempt.last_error}. */
  public static final int REASON = Reasons.MAX;
  /** {@code twinbox_inbox_parked.headers}: MariaDB's {@code TEXT} holds 65,535 bytes. */
  public static final int HEADERS_BYTES = 65_535;

  /** Every length-limited text column of {@code twinbox_inbox_parked}, with its limit. */
  public static final Map<String, Integer> PARKED = Map.ofEntries(
      Map.entry("consumer", ID),
      Map.entry("message_id", ID),
      Map.entry("type", ATTRIBUTE),
      Map.entry("source", ATTRIBUTE),
      Map.entry("aggregate_type", ATTRIBUTE),
      Map.entry("aggregate_id", ATTRIBUTE),
      Map.entry("correlation_id", ATTRIBUTE),
      Map.entry("causation_id", ATTRIBUTE),
      Map.entry("traceparent", TRACEPARENT),
      Map.entry("origin", ATTRIBUTE),
      Map.entry("payload_hash", 64),
      Map.entry("reason", REASON));

  /** The length-limited text columns of {@code twinbox_inbox} and {@code twinbox_inbox_attempt}. */
  public static final Map<String, Integer> RECORDS = Map.of(
      "consumer", ID,
      "message_id", ID,
      "payload_hash", 64,
      "last_error", REASON);
}
