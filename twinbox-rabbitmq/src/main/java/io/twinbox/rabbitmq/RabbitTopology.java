package io.twinbox.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Declares what a Twinbox flow needs on RabbitMQ, idempotently: a durable exchange (topic by
 * default), and optionally a durable quorum queue bound to it with a dead-letter exchange and queue
 * for the messages the broker itself gives up on ({@code x-delivery-limit} exceeded).
 *
 * <pre>{@code
 * RabbitTopology.builder("order")                       // the publisher's exchange
 *     .queue("payment-service.order")                   // the consumer's quorum queue
 *     .bindingKeys("OrderPlaced", "OrderCancelled")      // default "#": every type
 *     .build()
 *     .declare(connection);
 * }</pre>
 *
 * <p>Declaring again with the same settings does nothing; with different queue arguments the broker
 * refuses ({@code PRECONDITION_FAILED}) and {@link #declare} throws. Immutable and thread-safe.
 */
public final class RabbitTopology {
  private final String exchange;
  private final String exchangeType;
  private final String queue;
  private final List<String> bindingKeys;
  private final int deliveryLimit;
  private final boolean deadLetter;

  private RabbitTopology(Builder b) {
    this.exchange = b.exchange;
    this.exchangeType = b.exchangeType;
    this.queue = b.queue;
    this.bindingKeys = List.copyOf(b.bindingKeys.isEmpty() ? List.of("#") : b.bindingKeys);
    this.deliveryLimit = b.deliveryLimit;
    this.deadLetter = b.deadLetter;
  }

  /** Starts a topology around {@code exchange}. */
  public static Builder builder(String exchange) {
    return new Builder(exchange);
  }

  /** Declares everything on a channel of its own, closed afterwards. */
  public void declare(Connection connection) throws IOException {
    try (Channel ch = connection.createChannel()) {
      declare(ch);
    } catch (TimeoutException e) {
      throw new IOException("timed out closing the declaring channel", e);
    }
  }

  /** Declares everything on {@code channel}. */
  public void declare(Channel channel) throws IOException {
    channel.exchangeDeclare(exchange, exchangeType, true);
    if (queue == null) {
      return;
    }
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("x-queue-type", "quorum");
    if (deliveryLimit > 0) {
      args.put("x-delivery-limit", deliveryLimit);
    }
    if (deadLetter) {
      channel.exchangeDeclare(deadLetterExchange(), "fanout", true);
      channel.queueDeclare(deadLetterQueue(), true, false, false, Map.of("x-queue-type", "quorum"));
      channel.queueBind(deadLetterQueue(), deadLetterExchange(), "");
      args.put("x-dead-letter-exchange", deadLetterExchange());
    }
    channel.queueDeclare(queue, true, false, false, args);
    for (String key : bindingKeys) {
      channel.queueBind(queue, exchange, key);
    }
  }

  /** Deletes the queues and exchanges of this topology (tests, demos). Missing ones are ignored. */
  public void delete(Connection connection) throws IOException {
    try (Channel ch = connection.createChannel()) {
      if (queue != null) {
        ch.queueDelete(queue);
        if (deadLetter) {
          ch.queueDelete(deadLetterQueue());
          ch.exchangeDelete(deadLetterExchange());
        }
      }
      ch.exchangeDelete(exchange);
    } catch (TimeoutException e) {
      throw new IOException("timed out closing the deleting channel", e);
    }
  }

  public String exchange() {
    return exchange;
  }

  /** The queue, or {@code null} for an exchange-only topology. */
  public String queue() {
    return queue;
  }

  public List<String> bindingKeys() {
    return bindingKeys;
  }

  /** {@code <queue>.dlx}, a fanout exchange. */
  public String deadLetterExchange() {
    return queue + ".dlx";
  }

  /** {@code <queue>.dlq}, a quorum queue holding what the broker dead-lettered. */
  public String deadLetterQueue() {
    return queue + ".dlq";
  }

  public int deliveryLimit() {
    return deliveryLimit;
  }

  @Override
  public String toString() {
    return "RabbitTopology[exchange=" + exchange + " (" + exchangeType + "), queue=" + queue + ", bindingKeys="
        + bindingKeys + ", deliveryLimit=" + deliveryLimit + ", deadLetter=" + deadLetter + "]";
  }

  /** Configures a {@link RabbitTopology}. Not thread-safe. */
  public static final class Builder {
    private final String exchange;
    private String exchangeType = "topic";
    private String queue;
    private final List<String> bindingKeys = new ArrayList<>();
    private int deliveryLimit = 20;
    private boolean deadLetter = true;

    Builder(String exchange) {
      this.exchange = new RabbitDestination(exchange, "").exchange();
    }

    /** {@code topic} (default), {@code direct}, {@code fanout} or {@code headers}. */
    public Builder exchangeType(String type) {
      if (!List.of("topic", "direct", "fanout", "headers").contains(type)) {
        throw new IllegalArgumentException("exchangeType must be topic, direct, fanout or headers, was " + type);
      }
      this.exchangeType = type;
      return this;
    }

    /** A durable quorum queue bound to the exchange. Default none (exchange only). */
    public Builder queue(String name) {
      if (name == null || name.isBlank() || name.length() > 200) {
        throw new IllegalArgumentException("queue must be 1–200 non-blank characters");
      }
      this.queue = name;
      return this;
    }

    /** Binding keys of the queue. Default {@code "#"} (every routing key on a topic exchange). */
    public Builder bindingKeys(String... keys) {
      for (String k : keys) {
        bindingKeys.add(new RabbitDestination(exchange, Objects.requireNonNull(k, "binding key cannot be null"))
            .routingKey());
      }
      return this;
    }

    /**
     * The quorum queue's {@code x-delivery-limit}: after that many returns (consumer crashes,
     * closed channels) the broker dead-letters the message. A backstop only: the consumer's inbox
     * parks a message after its own {@code maxAttempts}, which should be lower. Default 20; 0 for
     * no limit.
     */
    public Builder deliveryLimit(int limit) {
      if (limit < 0) {
        throw new IllegalArgumentException("deliveryLimit must be >= 0, was " + limit);
      }
      this.deliveryLimit = limit;
      return this;
    }

    /** Whether to declare the dead-letter exchange and queue. Default true. */
    public Builder deadLetter(boolean enabled) {
      this.deadLetter = enabled;
      return this;
    }

    public RabbitTopology build() {
      return new RabbitTopology(this);
    }
  }
}
