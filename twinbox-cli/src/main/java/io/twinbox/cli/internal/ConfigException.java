package io.twinbox.cli.internal;

/** A setting that is unknown, missing or invalid; names the key, never a secret's value. Exit code 2. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
