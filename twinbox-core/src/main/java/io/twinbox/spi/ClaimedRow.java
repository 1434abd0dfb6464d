package io.twinbox.spi;

/**
 * One row a {@link OutboxStore#claim claim} returned: either an {@link OutboxMessage} ready to
 * publish, or an {@link UndecodableRow} — a row the store read but could not turn into a message
 * (headers that are not a JSON object of strings, an id that is not a UUID, a field that breaks the
 * write rules …), as rows written by plain SQL or stored before the schema checked them can be.
 *
 * <p>The relay publishes the messages and moves every undecodable row to FAILED at once, with its
 * reason in {@code last_error}, through the same fenced {@link OutboxStore#complete completion}
 * (by {@link #position()}, which every row has whatever else is wrong with it). An undecodable row
 * holds back the later rows of its own aggregate like any FAILED row, and nothing else: it never
 * fails the claim it came in.
 *
 * <p>The accessors are what the relay needs to order and fence a row; they are read from columns
 * that cannot be malformed (numbers, and the aggregate's own text).
 */
public sealed interface ClaimedRow permits OutboxMessage, UndecodableRow {

  /** The row's position in the outbox: how it is completed or failed. */
  long position();

  /** The row's partition; its lease fences the completion. */
  int partition();

  /** The aggregate type, as stored. */
  String aggregateType();

  /** The aggregate id as stored; {@code null} for an unordered row. */
  String aggregateId();

  /** The per-aggregate sequence; 0 for unordered rows. */
  long sequence();

  /** Failed publish attempts so far. */
  int attempts();
}
