package io.twinbox;

/**
 * Root of every exception Twinbox throws. Unchecked, so callers catch only what they can handle.
 *
 * <p>Messages never contain payloads, header values or credentials: they name the field, the
 * limit and the identifiers needed to find the row, nothing more.
 */
public class TwinboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TwinboxException(String message) {
    super(message);
  }

  public TwinboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
