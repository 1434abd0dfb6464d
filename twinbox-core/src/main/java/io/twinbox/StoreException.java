package io.twinbox;

/** A database operation of the store failed for a reason other than bad input. */
public class StoreException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
