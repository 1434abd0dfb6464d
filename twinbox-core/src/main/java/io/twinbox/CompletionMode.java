package io.twinbox;

/** What the relay does with a row once the broker acknowledged it. */
public enum CompletionMode {
  /** Delete the row: the hot table stays small. The default. */
  DELETE,
  /** Keep the row as PUBLISHED with {@code published_at}; retention deletes it later. */
  MARK
}
