package io.twinbox.example;

/**
 * Where the two services meet on Kafka: the broker, the two topics and the consumer group ids.
 *
 * @param bootstrapServers the Kafka bootstrap servers
 * @param orders the topic of {@code OrderCreated} (order service → payment service)
 * @param payments the topic of {@code PaymentCaptured} / {@code PaymentDeclined} (back)
 * @param groupSuffix appended to the group ids {@code payment-service} and {@code order-service},
 *     so runs on a shared broker do not meet; empty on a broker of one's own
 */
public record Topics(String bootstrapServers, String orders, String payments, String groupSuffix) {
  /** Partitions of each topic created by the demo. */
  public static final int PARTITIONS = 8;

  /** The payment service's consumer group on {@link #orders()}. */
  public String paymentGroup() {
    return PaymentService.CONSUMER + groupSuffix;
  }

  /** The order service's consumer group on {@link #payments()}. */
  public String orderGroup() {
    return OrderService.CONSUMER + groupSuffix;
  }
}
