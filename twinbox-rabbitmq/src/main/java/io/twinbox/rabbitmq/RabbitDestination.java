package io.twinbox.rabbitmq;

import java.nio.charset.StandardCharsets;

/**
 * Where one message is published: an exchange and a routing key. Immutable.
 *
 * @param exchange the exchange name, 1–255 UTF-8 bytes (the default exchange {@code ""} is not
 *     allowed: route to a declared exchange)
 * @param routingKey the routing key, 0–255 UTF-8 bytes
 */
public record RabbitDestination(String exchange, String routingKey) {

  /** @throws IllegalArgumentException naming the offending field */
  public RabbitDestination {
    if (exchange == null || exchange.isBlank()) {
      throw new IllegalArgumentException("exchange must not be blank");
    }
    if (exchange.getBytes(StandardCharsets.UTF_8).length > 255) {
      throw new IllegalArgumentException("exchange must be at most 255 bytes");
    }
    if (routingKey == null) {
      throw new IllegalArgumentException("routingKey cannot be null");
    }
    if (routingKey.getBytes(StandardCharsets.UTF_8).length > 255) {
      throw new IllegalArgumentException("routingKey must be at most 255 bytes");
    }
  }
}
