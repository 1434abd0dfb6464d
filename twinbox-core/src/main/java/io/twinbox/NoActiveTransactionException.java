package io.twinbox;

/**
 * An outbox write was attempted on a connection in auto-commit mode. The event would be committed
 * on its own, independently of the business change, which is exactly the dual write the outbox
 * exists to prevent. Nothing was written.
 */
public final class NoActiveTransactionException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  public NoActiveTransactionException() {
    super(
        "outbox write needs an active transaction: the connection is in auto-commit mode; call"
            + " connection.setAutoCommit(false) and write the business change on the same connection");
  }
}
