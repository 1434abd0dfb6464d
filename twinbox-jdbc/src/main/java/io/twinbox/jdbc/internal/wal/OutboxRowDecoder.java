package io.twinbox.jdbc.internal.wal;

import io.twinbox.spi.StoreRules;
import io.twinbox.spi.Change;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxMessage;
import java.nio.charset.Charset;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns an outbox row from the replication stream (text values, columns named by the Relation
 * message, never taken by position) into the {@link OutboxMessage} the polling claim would return
 * for it: same columns, same types, same parsing ({@code payload} and {@code headers} are jsonb's
 * text, as {@code ::text} gives them to the claim). Row by row safe: a row that cannot be read
 * becomes {@link Change.Unreadable} with the reason, so it goes to FAILED and holds back only its
 * own aggregate instead of stalling the stream.
 *
 * <p>Not thread-safe: one per stream.
 */
final class OutboxRowDecoder {
  private static final List<String> REQUIRED = List.of("position", "id", "aggregate_type", "aggregate_id",
      "sequence", "type", "version", "payload", "headers", "correlation_id", "causation_id", "traceparent",
      "occurred_at", "created_at", "status", "attempts", "next_attempt_at");

  private final int partitions;
  private final Charset serverEncoding;
  private Map<String, Integer> columns = Map.of();

  OutboxRowDecoder(int partitions, Charset serverEncoding) {
    this.partitions = partitions;
    this.serverEncoding = serverEncoding;
  }

  /** A Relation message for the outbox arrived: learn where each column is. */
  void columns(List<String> names) {
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      index.put(names.get(i), i);
    }
    for (String required : REQUIRED) {
      if (!index.containsKey(required)) {
        throw new IllegalStateException("the replicated twinbox_outbox lacks column " + required
            + "; is the schema migrated? (columns: " + names + ")");
      }
    }
    this.columns = index;
  }

  /**
   * Decodes one inserted row, or returns null for a row the relay must ignore (inserted as
   * PUBLISHED).
   *
   * @param values the row's text values, null for SQL NULL
   */
  Change decode(List<String> values) {
    long position = Long.parseLong(value(values, "position"));
    String aggregateType = value(values, "aggregate_type");
    String aggregateId = value(values, "aggregate_id");
    String idText = value(values, "id");
    try {
      String status = value(values, "status");
      if ("PUBLISHED".equals(status)) {
        return null;
      }
      UUID id = UUID.fromString(idText);
      Integer partitionColumn = columns.get("partition_no"); // sent only where generated columns are
      int partition = partitionColumn != null && values.get(partitionColumn) != null
          ? Integer.parseInt(values.get(partitionColumn))
          : PartitionHash.partition(aggregateType, aggregateId != null ? aggregateId : idText, partitions,
              serverEncoding);
      OutboxMessage m = new OutboxMessage(
          position,
          id,
          aggregateType,
          aggregateId,
          Long.parseLong(value(values, "sequence")),
          partition,
          value(values, "type"),
          Integer.parseInt(value(values, "version")),
          value(values, "payload"),
          StoreRules.decodeHeaders(value(values, "headers")),
          value(values, "correlation_id"),
          value(values, "causation_id"),
          value(values, "traceparent"),
          timestamp(values, "occurred_at"),
          timestamp(values, "created_at"),
          Integer.parseInt(value(values, "attempts")),
          null);
      Instant due = timestamp(values, "next_attempt_at");
      boolean ready = "PENDING".equals(status) && (due == null || !due.isAfter(Instant.now()));
      return new Change.Insert(m, ready);
    } catch (RuntimeException e) {
      GroupKey group = aggregateId != null
          ? new GroupKey(aggregateType, aggregateId, true)
          : new GroupKey(aggregateType, idText, false);
      return new Change.Unreadable(position, group, "unreadable outbox row: " + StoreRules.reason(e));
    }
  }

  private String value(List<String> values, String column) {
    return values.get(columns.get(column));
  }

  private Instant timestamp(List<String> values, String column) {
    String text = value(values, column);
    return text == null ? null : PgTimestamps.parse(text);
  }
}
