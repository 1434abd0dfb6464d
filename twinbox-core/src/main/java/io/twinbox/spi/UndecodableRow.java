package io.twinbox.spi;

/**
 * A claimed row that the store could not turn into an {@link OutboxMessage}: see {@link
 * ClaimedRow}. The relay fails it at once with {@link #reason()}; it is never published.
 *
 * @param position the row's position, by which it is failed
 * @param id the stored message id as text, for logs; it may not be a UUID (that can be the reason).
 *     Stores clip it and replace control characters, so it is safe to print
 * @param aggregateType the aggregate type as stored (used to hold the aggregate back; may itself
 *     break the rules, so print it only after escaping)
 * @param aggregateId the aggregate id as stored, {@code null} for an unordered row
 * @param sequence the per-aggregate sequence, 0 for unordered rows
 * @param partition the row's partition
 * @param attempts failed publish attempts so far
 * @param reason what is wrong, naming the field and the rule, never the value (it goes to
 *     {@code last_error}), e.g. {@code "undecodable row: headers: is a JSON null, not an object"}
 */
public record UndecodableRow(
    long position,
    String id,
    String aggregateType,
    String aggregateId,
    long sequence,
    int partition,
    int attempts,
    String reason) implements ClaimedRow {}
