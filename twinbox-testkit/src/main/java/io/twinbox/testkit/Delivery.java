package io.twinbox.testkit;

import java.util.Objects;
import java.util.UUID;

/**
 * One record as it reached the broker, reduced to what the {@link DeliveryChecker} judges: where
 * it is, and the message id, aggregate and sequence it carries. {@link KafkaDeliveryReader} builds
 * these from the CloudEvents headers.
 *
 * <p>Immutable and thread-safe.
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the offset in the partition
 * @param key the record key as UTF-8 text; null when the record has none
 * @param id the message id ({@code ce_id})
 * @param aggregateType the aggregate type ({@code ce_aggregatetype}); null when absent
 * @param aggregateId the aggregate id ({@code ce_subject}); null for an unordered event
 * @param sequence the per-aggregate sequence ({@code ce_sequence}); 0 for an unordered event
 */
public record Delivery(String topic, int partition, long offset, String key, UUID id,
    String aggregateType, String aggregateId, long sequence) {

  public Delivery {
    Objects.requireNonNull(topic, "topic cannot be null");
    Objects.requireNonNull(id, "id cannot be null");
  }

  /** {@code topic-partition@offset}, for messages. */
  public String position() {
    return topic + "-" + partition + "@" + offset;
  }
}
