package io.twinbox;

/**
 * A handler threw. The inbox's transaction must be rolled back; the consumer adapter retries the
 * message or parks it after its attempts are exhausted.
 */
public final class InboxHandlerException extends TwinboxException {
  private static final long serialVersionUID = 1L;
  private final String messageId;
  private final int index;

  public InboxHandlerException(String messageId, int index, Throwable cause) {
    super("handler failed on message " + messageId + ": " + cause.getClass().getSimpleName(), cause);
    this.messageId = messageId;
    this.index = index;
  }

  /** The id of the message whose handler threw. */
  public String messageId() {
    return messageId;
  }

  /**
   * Its position in the batch given to {@link Inbox#processAll}; {@code -1} when an {@link
   * InboxBatchHandler} failed for several messages and none is to blame ({@link #messageId()} is
   * then the first of them).
   */
  public int index() {
    return index;
  }
}
