/**
 * The NATS JetStream transport: {@link io.twinbox.nats.NatsPublisher} publishes outbox messages as
 * CloudEvents 1.0 (NATS binding, binary content mode) with {@code Nats-Msg-Id} = the message id and
 * waits for JetStream's publish acknowledgement; {@link io.twinbox.nats.NatsInboxConsumer} consumes a
 * durable pull consumer through the inbox and acknowledges only after the database commit;
 * {@link io.twinbox.nats.NatsStreams} creates streams for tests and demos.
 *
 * <p>All public types are thread-safe unless their documentation says otherwise (builders are not).
 */
package io.twinbox.nats;
