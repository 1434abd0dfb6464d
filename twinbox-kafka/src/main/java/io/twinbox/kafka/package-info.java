/**
 * The Kafka transport: {@link io.twinbox.kafka.KafkaPublisher} publishes outbox messages as
 * CloudEvents 1.0 (binary content mode) with {@code acks=all} and the idempotent producer;
 * {@link io.twinbox.kafka.TopicRouter} chooses each message's topic.
 *
 * <p>All public types are thread-safe unless their documentation says otherwise (builders are not).
 */
package io.twinbox.kafka;
