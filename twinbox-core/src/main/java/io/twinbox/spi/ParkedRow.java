package io.twinbox.spi;

import io.twinbox.InboxMessage;
import io.twinbox.internal.Headers;
import io.twinbox.internal.InboxColumns;
import io.twinbox.internal.StorableText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parked message as it is stored: every field fits its column of {@code twinbox_inbox_parked}
 * ({@link InboxColumns}), whatever arrived from the wire. Text is cleaned of what no database
 * stores ({@link StorableText}) and clipped; a payload holding NUL is kept exactly as
 * {@code base64:} of its UTF-8 bytes; a payload larger than the database takes in one statement is
 * left out (its hash stays); headers are kept while they fit. The reason says what was changed, so
 * that an operator knows the stored row is not the message verbatim. If a database still refuses
 * the row, {@link #minimal} is the one that always fits. Immutable.
 */
public record ParkedRow(
    String messageId,
    String type,
    int version,
    String source,
    String aggregateType,
    String aggregateId,
    long sequence,
    String payload,
    String headersJson,
    String correlationId,
    String causationId,
    String traceparent,
    String origin,
    String payloadHash,
    String reason,
    int attempts) {

  /** The longest note appended to a reason, so that the cause itself keeps most of the column. */
  private static final int MAX_NOTES = 400;

  /**
   * The storable row for {@code m}, parked for {@code reason}.
   *
   * @param maxPayloadBytes the largest payload (UTF-8 bytes) the database takes in one statement
   */
  public static ParkedRow of(InboxMessage m, String payloadHash, String reason, int attempts, long maxPayloadBytes) {
    Notes notes = new Notes();
    return new ParkedRow(
        notes.text("message_id", m.id(), InboxColumns.ID),
        notes.text("type", m.type(), InboxColumns.ATTRIBUTE),
        m.version(),
        notes.text("source", m.source(), InboxColumns.ATTRIBUTE),
        notes.text("aggregate_type", m.aggregateType(), InboxColumns.ATTRIBUTE),
        notes.text("aggregate_id", m.aggregateId(), InboxColumns.ATTRIBUTE),
        m.sequence(),
        notes.payload(m.payload(), maxPayloadBytes),
        notes.headers(m.headers()),
        notes.text("correlation_id", m.correlationId(), InboxColumns.ATTRIBUTE),
        notes.text("causation_id", m.causationId(), InboxColumns.ATTRIBUTE),
        notes.text("traceparent", m.traceparent(), InboxColumns.TRACEPARENT),
        notes.text("origin", m.origin(), InboxColumns.ATTRIBUTE),
        payloadHash,
        notes.appendTo(reason),
        attempts);
  }

  /**
   * The row that always fits: id, hash, attempts and the reason with {@code why} the full row was
   * refused; every field of the message is left out.
   */
  public ParkedRow minimal(String why) {
    String note = " [" + StorableText.clip(why, MAX_NOTES) + "; stored without the message's fields]";
    String base = StorableText.clip(reason, InboxColumns.REASON - note.length());
    return new ParkedRow(messageId, null, 0, null, null, null, 0, null, null, null, null, null, null, payloadHash,
        base + note, attempts);
  }

  /** What was changed on the way into the row. */
  private static final class Notes {
    private final List<String> clipped = new ArrayList<>();
    private final List<String> nul = new ArrayList<>();
    private final List<String> other = new ArrayList<>();

    String text(String column, String value, int max) {
      if (value == null) {
        return null;
      }
      if (!StorableText.isClean(value)) {
        nul.add(column);
      }
      String stored = StorableText.clip(value, max);
      if (stored.length() < value.length()) {
        clipped.add(column + " clipped from " + value.length() + " to " + stored.length() + " characters");
      }
      return stored;
    }

    String payload(String payload, long maxBytes) {
      // Lossless for NUL, which is valid UTF-8: the operator can decode the exact text.
      boolean clean = StorableText.isClean(payload);
      String stored = clean ? payload
          : "base64:" + Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
      // A statement beyond the database's packet limit breaks the connection (MariaDB 1153,
      // SQLSTATE 08S01): that must not happen on every retry. Cheap test first: a char is <= 3 bytes.
      if ((long) stored.length() * 3 > maxBytes) {
        long bytes = stored.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
          other.add("payload of " + bytes + " bytes not stored: the database takes at most " + maxBytes
              + " per statement; payload_hash identifies it");
          return null;
        }
      }
      if (!clean) {
        other.add("payload stored as base64 of its UTF-8 (it holds NUL or an unpaired surrogate)");
      }
      return stored;
    }

    String headers(Map<String, String> headers) {
      Map<String, String> clean = new LinkedHashMap<>();
      boolean mapped = false;
      for (Map.Entry<String, String> h : headers.entrySet()) {
        mapped |= !StorableText.isClean(h.getKey()) || !StorableText.isClean(h.getValue());
        clean.put(StorableText.clean(h.getKey()), StorableText.clean(h.getValue()));
      }
      if (mapped) {
        nul.add("headers");
      }
      String json = Headers.toJson(clean);
      if (json.getBytes(StandardCharsets.UTF_8).length <= InboxColumns.HEADERS_BYTES) {
        return json;
      }
      // Keep headers while they fit; the message's hash still identifies the whole. Sized
      // entry by entry: re-encoding the growing map would be quadratic in the header count.
      Map<String, String> kept = new LinkedHashMap<>();
      long budget = InboxColumns.HEADERS_BYTES - 2; // the braces
      for (Map.Entry<String, String> h : clean.entrySet()) {
        long size = Headers.toJson(Map.of(h.getKey(), h.getValue())).getBytes(StandardCharsets.UTF_8).length - 2
            + (kept.isEmpty() ? 0 : 1); // the comma
        if (size > budget) {
          break;
        }
        budget -= size;
        kept.put(h.getKey(), h.getValue());
      }
      other.add("headers: " + kept.size() + " of " + clean.size() + " stored (" + InboxColumns.HEADERS_BYTES
          + "-byte limit)");
      return Headers.toJson(kept);
    }

    String appendTo(String reason) {
      List<String> all = new ArrayList<>(clipped);
      if (!nul.isEmpty()) {
        all.add("NUL mapped to U+2400 (unpaired surrogates to U+FFFD) in " + String.join(", ", nul));
      }
      all.addAll(other);
      if (all.isEmpty()) {
        return StorableText.reason(reason);
      }
      String note = " [stored: " + StorableText.clip(String.join("; ", all), MAX_NOTES) + "]";
      return StorableText.clip(StorableText.reason(reason), InboxColumns.REASON - note.length()) + note;
    }
  }
}
