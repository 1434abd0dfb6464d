package io.twinbox;

/**
 * An event was refused at write time because one of its fields breaks a rule. Nothing was written.
 *
 * <p>{@link #field()} names the offending field ({@code type}, {@code payload}, {@code headers.x-tenant}
 * …) so that callers can map the error to their own input.
 */
public final class InvalidEventException extends TwinboxException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidEventException(String field, String problem) {
    super(field + ": " + problem);
    this.field = field;
  }

  /** The name of the field that broke a rule. */
  public String field() {
    return field;
  }
}
