/**
 * The RabbitMQ transport: {@link io.twinbox.rabbitmq.RabbitPublisher} publishes outbox messages as
 * CloudEvents 1.0 (AMQP binary content mode) with publisher confirms, {@code mandatory} and
 * persistent delivery; {@link io.twinbox.rabbitmq.RabbitInboxConsumer} consumes a queue through the
 * inbox and acknowledges only after the database commit; {@link io.twinbox.rabbitmq.RabbitTopology}
 * declares the exchange, the quorum queue and its dead-letter queue.
 *
 * <p>All public types are thread-safe unless their documentation says otherwise (builders are not).
 */
package io.twinbox.rabbitmq;
