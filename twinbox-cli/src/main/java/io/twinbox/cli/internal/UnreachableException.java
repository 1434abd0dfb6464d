package io.twinbox.cli.internal;

/** The database (or broker) cannot be reached or refuses the login. Exit code 3. */
public final class UnreachableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnreachableException(String message) {
    super(message);
  }
}
