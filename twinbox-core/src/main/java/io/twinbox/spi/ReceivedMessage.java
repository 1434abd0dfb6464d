package io.twinbox.spi;

import io.twinbox.InboxMessage;
import java.time.Instant;
import java.util.Objects;

/**
 * One item a {@link MessageSource} fetched: a decoded message, or — when the wire item could not be
 * read — a stand-in to park with the reason it was refused.
 *
 * @param message the message; for an undecodable item, the stand-in to park (type {@code
 *     unreadable}, an id derived from the item's place or content so that its redelivery is
 *     recognised: see {@link WireEvents#unreadable})
 * @param undecodable why the item could not be read, {@code null} for a decoded message
 * @param redelivered whether the broker says it (may have) delivered this item before: the consumer
 *     then counts an attempt before the handler runs, unless the inbox already holds the id
 * @param receivedAt when the consumer received it from the broker (for the receive → commit timer)
 */
public record ReceivedMessage(InboxMessage message, String undecodable, boolean redelivered, Instant receivedAt) {
  public ReceivedMessage {
    Objects.requireNonNull(message, "message cannot be null");
    Objects.requireNonNull(receivedAt, "receivedAt cannot be null");
  }

  /** The result of a read ({@link WireEvents#read}) received now. */
  public static ReceivedMessage of(WireEvents.Read read, boolean redelivered) {
    return new ReceivedMessage(read.message(), read.failure(), redelivered, Instant.now());
  }
}
