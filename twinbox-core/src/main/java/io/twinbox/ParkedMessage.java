package io.twinbox;

import java.time.Instant;
import java.util.Map;

/**
 * A parked inbox message as an operator sees it ({@link TwinboxAdmin#parked}). Text is as stored:
 * fitted to its column, NUL mapped (the reason says what was changed on the way in). The payload is
 * there only when it was asked for ({@link TwinboxAdmin#parkedMessage(long, boolean)}); {@link
 * #payloadStored} tells whether the row has one at all (a message too large for the database, or one
 * stored as the minimal row, has none and cannot be replayed).
 *
 * @param id the parked row's id, the handle of every operation on it
 * @param consumer the consumer that parked it
 * @param messageId the message id (the inbox's key with the consumer)
 * @param type may be {@code null} (a minimal row)
 * @param version the contract version, 0 when not stored
 * @param source may be {@code null}
 * @param aggregateType may be {@code null}
 * @param aggregateId may be {@code null}
 * @param sequence the per-aggregate sequence, 0 when absent
 * @param reason why it was parked (after a failed replay: why the replay failed)
 * @param attempts handler attempts made, replays included
 * @param parkedAt when it was parked (store clock)
 * @param headers the user headers as stored
 * @param correlationId may be {@code null}
 * @param causationId may be {@code null}
 * @param traceparent may be {@code null}
 * @param origin where it came from (e.g. {@code orders-3@1234}), may be {@code null}
 * @param payloadHash the SHA-256 the inbox knows the message by, may be {@code null}
 * @param state where it stands
 * @param stateAt when it got there ({@code null} while {@code PARKED} as parked)
 * @param stateBy who put it there: the operator, or {@code consumer:<name>} for the consumer's outcome
 * @param payloadStored whether the row holds the payload
 * @param payload the payload as stored, {@code null} unless asked for
 */
public record ParkedMessage(
    long id,
    String consumer,
    String messageId,
    String type,
    int version,
    String source,
    String aggregateType,
    String aggregateId,
    long sequence,
    String reason,
    int attempts,
    Instant parkedAt,
    Map<String, String> headers,
    String correlationId,
    String causationId,
    String traceparent,
    String origin,
    String payloadHash,
    ParkedState state,
    Instant stateAt,
    String stateBy,
    boolean payloadStored,
    String payload) {

  public ParkedMessage {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** This message without its payload. */
  public ParkedMessage withoutPayload() {
    return payload == null ? this : new ParkedMessage(id, consumer, messageId, type, version, source, aggregateType,
        aggregateId, sequence, reason, attempts, parkedAt, headers, correlationId, causationId, traceparent, origin,
        payloadHash, state, stateAt, stateBy, payloadStored, null);
  }

  /** The message to hand to the consumer's handler again; {@code time} is not stored and stays null. */
  public InboxMessage toInboxMessage() {
    return new InboxMessage(messageId, type == null ? "" : type, version, source, aggregateType, aggregateId, sequence,
        payload, headers, correlationId, causationId, traceparent, null, origin);
  }
}
