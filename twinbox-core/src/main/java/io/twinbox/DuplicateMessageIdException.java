package io.twinbox;

import java.util.UUID;

/**
 * An event was written with a message id that the outbox already holds. The statement failed, so
 * the caller's transaction must be rolled back; nothing is dropped silently downstream.
 */
public final class DuplicateMessageIdException extends TwinboxException {
  private static final long serialVersionUID = 1L;
  private final UUID messageId;

  public DuplicateMessageIdException(UUID messageId, Throwable cause) {
    super("message id " + messageId + " is already in the outbox; message ids must be unique", cause);
    this.messageId = messageId;
  }

  public UUID messageId() {
    return messageId;
  }
}
