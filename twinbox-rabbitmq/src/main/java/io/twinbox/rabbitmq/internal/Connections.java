package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.ConnectionFactory;
import java.time.Duration;
import java.util.Objects;

/** Connection factories from a URI or a user's factory, without ever echoing a password. */
public final class Connections {
  /** Connect and handshake timeouts set on factories built from a URI: fail fast on an outage. */
  public static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private Connections() {}

  /**
   * A factory for {@code uri}. The URI is never put in an exception or a log line: it may carry a
   * password.
   *
   * @throws IllegalArgumentException when it is not an {@code amqp://} or {@code amqps://} URI
   */
  public static ConnectionFactory fromUri(String uri) {
    Objects.requireNonNull(uri, "uri cannot be null");
    ConnectionFactory f = new ConnectionFactory();
    try {
      f.setUri(uri);
    } catch (Exception e) {
      throw new IllegalArgumentException("uri is not a valid AMQP URI (amqp://user:password@host:port/vhost); "
          + "the value is not shown because it may contain a password");
    }
    f.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
    f.setHandshakeTimeout(CONNECT_TIMEOUT_MILLIS);
    return f;
  }

  /** A copy, so that later changes to the user's factory do not reach a running client. */
  public static ConnectionFactory copyOf(ConnectionFactory factory) {
    return Objects.requireNonNull(factory, "factory cannot be null").clone();
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
