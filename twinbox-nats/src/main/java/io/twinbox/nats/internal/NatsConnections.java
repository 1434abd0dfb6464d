package io.twinbox.nats.internal;

import io.nats.client.Options;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/** Client options from a server URL, and URLs made safe to show (no user info, so no password). */
public final class NatsConnections {
  private NatsConnections() {}

  /**
   * Client options for {@code url}: reconnect forever after a loss (every 500 ms), 5 s connect
   * timeout, client errors to SLF4J.
   *
   * @throws IllegalArgumentException when the URL is invalid; the URL is not shown
   */
  public static Options options(String url, String connectionName) {
    Objects.requireNonNull(url, "url cannot be null");
    try {
      return new Options.Builder().server(url).connectionName(connectionName)
          .maxReconnects(-1).reconnectWait(Duration.ofMillis(500)).connectionTimeout(Duration.ofSeconds(5))
          .errorListener(new QuietErrorListener()).build();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("url is not a valid NATS URL; the value is not shown because it may "
          + "contain a password");
    }
  }

  /** {@code nats://user:secret@host:4222} → {@code nats://***@host:4222}. */
  public static String redact(String url) {
    try {
      URI u = URI.create(url);
      if (u.getRawUserInfo() == null) {
        return url;
      }
      return u.getScheme() + "://***@" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
    } catch (IllegalArgumentException e) {
      return "(unparseable URL)";
    }
  }

  /** Validates a duration setting, naming it. */
  public static Duration within(String name, Duration value, Duration min, Duration max) {
    Objects.requireNonNull(value, name + " cannot be null");
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + " must be within [" + min + ", " + max + "], was " + value);
    }
    return value;
  }
}
