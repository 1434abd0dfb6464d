package io.twinbox.spi;

import io.twinbox.InboxMessage;
import io.twinbox.internal.Blame;
import io.twinbox.internal.EventRules;
import io.twinbox.internal.Headers;
import io.twinbox.internal.InboxColumns;
import io.twinbox.internal.PayloadHash;
import io.twinbox.internal.Reasons;
import io.twinbox.internal.StorableText;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Core's rules a store applies to what it reads and writes, so that every store judges rows, texts
 * and failures as the writer and the consumer do: headers as the writer encodes them, the envelope
 * and payload rules a claimed row must meet, reasons fit for {@code last_error}, and whose fault a
 * database failure is. Stateless and thread-safe.
 */
public final class StoreRules {
  private StoreRules() {}

  /**
   * The user headers of a stored {@code headers} column (a JSON object of strings, as the writer
   * encodes it).
   *
   * @throws io.twinbox.InvalidEventException naming {@code headers} when it is not such an object
   */
  public static Map<String, String> decodeHeaders(String json) {
    return Headers.fromJson(json);
  }

  /** Checks decoded headers against the write rules (names, reserved prefixes, sizes); returns them. */
  public static Map<String, String> checkHeaders(Map<String, String> headers) {
    return EventRules.checkHeaders(headers);
  }

  /** The header-name prefixes no user header may start with (compared lower-case). */
  public static List<String> reservedHeaderPrefixes() {
    return EventRules.reservedHeaderPrefixes();
  }

  /**
   * Checks a row's envelope (type, version, aggregate, ids, traceparent) against the write rules.
   *
   * @throws io.twinbox.InvalidEventException naming the first field that breaks a rule
   */
  public static void checkEnvelope(String type, int version, String aggregateType, String aggregateId,
      String correlationId, String causationId, String traceparent) {
    EventRules.checkEnvelope(type, version, aggregateType, aggregateId, correlationId, causationId, traceparent);
  }

  /** @throws io.twinbox.InvalidEventException naming {@code field} when {@code json} is not storable JSON */
  public static void requireJson(String field, String json) {
    EventRules.requireJson(field, json);
  }

  /** The payload hash the inbox records for a message (hex SHA-256 of type, version and data). */
  public static String payloadHash(InboxMessage message) {
    return PayloadHash.of(message);
  }

  /** Every length-limited text column of {@code twinbox_inbox_parked}, with the limit a store must give it. */
  public static Map<String, Integer> parkedColumns() {
    return InboxColumns.PARKED;
  }

  /** The length-limited text columns of {@code twinbox_inbox} and {@code twinbox_inbox_attempt}. */
  public static Map<String, Integer> recordColumns() {
    return InboxColumns.RECORDS;
  }

  /** A short reason for a failure: its class and message, clipped to what {@code last_error} holds. */
  public static String reason(Throwable failure) {
    return Reasons.of(failure);
  }

  /** {@code text} made storable in any database's text column (NUL replaced, surrogates paired) and clipped. */
  public static String storableReason(String text) {
    return StorableText.reason(text);
  }

  /**
   * True when {@code failure} is the database's trouble (connection, deadlock, resources: SQLSTATE
   * classes 08, 40, 53, 57, or what {@code isTransient} adds) rather than the data's.
   */
  public static boolean isInfrastructure(Throwable failure, Predicate<SQLException> isTransient) {
    return Blame.of(failure, isTransient) == Blame.INFRASTRUCTURE;
  }
}
