package io.twinbox;

/**
 * An outbox write or inbox record was attempted on a connection in auto-commit mode. It would be
 * committed on its own, independently of the business change: exactly the dual write Twinbox
 * exists to prevent. Nothing was written.
 */
public final class NoActiveTransactionException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  /** @param operation what was attempted, e.g. {@code "outbox write"} */
  public NoActiveTransactionException(String operation) {
    super(operation + " needs an active transaction: the connection is in auto-commit mode; call"
        + " connection.setAutoCommit(false) and make the business change on the same connection");
  }
}
