package io.twinbox;

/**
 * Thrown by a handler (or a decoder) for a message that can never be processed: malformed data,
 * an unknown type, an unsupported contract version. The consumer adapter parks such a message at
 * once instead of retrying it. Any other exception is retried with backoff first.
 */
public class UnprocessableMessageException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  public UnprocessableMessageException(String message) {
    super(message);
  }

  public UnprocessableMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
