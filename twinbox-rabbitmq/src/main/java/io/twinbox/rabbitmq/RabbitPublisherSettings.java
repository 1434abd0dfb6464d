package io.twinbox.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import io.twinbox.rabbitmq.internal.Connections;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.settings.SettingValues;
import java.time.Duration;

/**
 * The connection and publisher settings of RabbitMQ, declared once: the starter's {@code
 * twinbox.rabbitmq.*}, the CLI's {@code rabbitmq.*} and the README derive from {@link #CATALOGUE},
 * and {@link #connectionFactory} / {@link #builder} turn given values into a client for both.
 * {@link RabbitPublisher.Builder} validates with the same settings. Immutable.
 */
public final class RabbitPublisherSettings {
  public static final Setting<String> URI = Setting.string("uri").length(10_000)
      .description("amqp://user:password@host:5672/vhost (its user info is never shown); or host and the settings below, not both.");
  public static final Setting<String> HOST = Setting.string("host").length(255)
      .description("Broker host, when no uri is given.");
  public static final Setting<Integer> PORT = Setting.integer("port").range(1, 65_535)
      .defaultValue(ConnectionFactory.DEFAULT_AMQP_PORT).description("Broker port, with host.");
  public static final Setting<String> USERNAME = Setting.string("username").length(255)
      .defaultValue(ConnectionFactory.DEFAULT_USER).description("Login user, with host.");
  public static final Setting<String> PASSWORD = Setting.string("password").asSecret()
      .defaultText(ConnectionFactory.DEFAULT_PASS + " (the client's)").description("Login password, with host.");
  public static final Setting<String> VIRTUAL_HOST = Setting.string("virtualHost").length(255)
      .defaultValue(ConnectionFactory.DEFAULT_VHOST).description("Virtual host, with host.");
  public static final Setting<String> EXCHANGE = Setting.string("exchange").length(255)
      .defaultText("the aggregate type, lower-cased")
      .description("Send every event to this one exchange (routing key: the event type).");
  public static final Setting<String> DEAD_LETTER_EXCHANGE = Setting.string("deadLetterExchange").length(255)
      .defaultText("the event's exchange + .dlq")
      .description("Send every dead letter (relay deadLetters=true) to this one exchange (routing key: the event type).");
  public static final Setting<String> CONNECTION_NAME = Setting.string("connectionName").length(255)
      .defaultValue("twinbox-relay").description("The connection name the broker shows.");
  public static final Setting<Duration> CONFIRM_TIMEOUT = Setting.duration("confirmTimeout")
      .range(Duration.ofMillis(1), Duration.ofMinutes(10)).defaultValue(Duration.ofSeconds(30))
      .description("Longest wait for a publisher confirm before the send counts as an outage.");
  public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.integer("maxMessageBytes").atLeast(1024)
      .defaultValue(16 * 1024 * 1024)
      .description("Larger messages (body + headers) are rejected unsent; keep it at most the broker's"
          + " max_message_size.");
  public static final Setting<Duration> RECONNECT_BACKOFF = Setting.duration("reconnectBackoff")
      .range(Duration.ZERO, Duration.ofMinutes(5)).defaultValue(Duration.ofSeconds(1))
      .description("After a failed connect, sends fail fast for this long.");
  public static final Setting<Duration> EXCHANGE_CHECK_TTL = Setting.duration("exchangeCheckTtl")
      .range(Duration.ZERO, Duration.ofHours(1)).defaultValue(Duration.ofSeconds(30))
      .description("How long an exchange found to exist is trusted before it is checked again.");

  private static final Catalogue.Rule URI_OR_HOST = (v, name) -> v.get(URI) != null && v.get(HOST) != null
      ? "set either " + name.apply(URI.name()) + " or " + name.apply(HOST.name()) + ", not both" : null;

  /** The connection settings ({@link #connectionFactory}) and the {@link RabbitPublisher.Builder} methods. */
  public static final Catalogue<RabbitPublisher.Builder> CATALOGUE =
      Catalogue.<RabbitPublisher.Builder>builder("rabbitmq", "RabbitPublisher.Builder")
          .add(URI)
          .add(HOST)
          .add(PORT)
          .add(USERNAME)
          .add(PASSWORD)
          .add(VIRTUAL_HOST)
          .add(EXCHANGE, (b, v) -> b.router(RabbitRouter.fixed(v)))
          .add(DEAD_LETTER_EXCHANGE, (b, v) -> b.deadLetterRouter(RabbitRouter.fixed(v)))
          .add(CONNECTION_NAME, RabbitPublisher.Builder::connectionName)
          .add(CONFIRM_TIMEOUT, RabbitPublisher.Builder::confirmTimeout)
          .add(MAX_MESSAGE_BYTES, RabbitPublisher.Builder::maxMessageBytes)
          .add(RECONNECT_BACKOFF, RabbitPublisher.Builder::reconnectBackoff)
          .add(EXCHANGE_CHECK_TTL, RabbitPublisher.Builder::exchangeCheckTtl)
          .rule(URI_OR_HOST)
          .build();

  private RabbitPublisherSettings() {}

  /** Whether {@code values} say where the broker is: a uri or a host. */
  public static boolean configured(SettingValues values) {
    return values.get(URI) != null || values.get(HOST) != null;
  }

  /**
   * A client factory from the uri, or from host, port, username, password and virtual host;
   * connect and handshake timeouts 5 s either way. Never shows the uri or the password.
   *
   * @throws IllegalArgumentException when neither uri nor host is given, or the uri is invalid
   */
  public static ConnectionFactory connectionFactory(SettingValues values) {
    if (values.get(URI) != null) {
      return Connections.fromUri(values.get(URI));
    }
    if (values.get(HOST) == null) {
      throw new IllegalArgumentException("uri or host is required");
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(values.get(HOST));
    factory.setPort(values.get(PORT));
    factory.setUsername(values.get(USERNAME));
    if (values.get(PASSWORD) != null) {
      factory.setPassword(values.get(PASSWORD));
    }
    factory.setVirtualHost(values.get(VIRTUAL_HOST));
    factory.setConnectionTimeout(Connections.CONNECT_TIMEOUT_MILLIS);
    factory.setHandshakeTimeout(Connections.CONNECT_TIMEOUT_MILLIS);
    return factory;
  }

  /** A publisher builder from checked values ({@link Catalogue#values}); a router may still be set on it. */
  public static RabbitPublisher.Builder builder(SettingValues values) {
    return CATALOGUE.apply(RabbitPublisher.builder(connectionFactory(values)), values);
  }
}
