package io.twinbox.admin.internal;

/** A request the API refuses: the HTTP status and a message safe to show (no secrets, no input echo). */
public final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String field;
  private final long retryAfterSeconds;

  public ApiError(int status, String field, String message) {
    this(status, field, message, 0);
  }

  /** @param retryAfterSeconds sent as {@code Retry-After} when positive (429) */
  public ApiError(int status, String field, String message, long retryAfterSeconds) {
    super(message, null, false, false);
    this.status = status;
    this.field = field;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public static ApiError badRequest(String field, String message) {
    return new ApiError(400, field, field + " " + message);
  }

  public int status() {
    return status;
  }

  /** The request field at fault, or {@code null}. */
  public String field() {
    return field;
  }

  /** Seconds the caller should wait before trying again; 0 when not applicable. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
