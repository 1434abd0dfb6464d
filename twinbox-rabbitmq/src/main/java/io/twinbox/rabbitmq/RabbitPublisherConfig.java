package io.twinbox.rabbitmq;

import java.time.Duration;

/**
 * The effective settings of a {@link RabbitPublisher}, for operators (the CLI {@code status}
 * command, the admin page). Holds no secret: the password is never kept here. Immutable.
 *
 * @param host the broker's host
 * @param port the broker's port
 * @param virtualHost the virtual host
 * @param username the user name (not a secret; the password is left out)
 * @param connectionName the client-provided connection name shown by the broker
 * @param router the router's description, e.g. {@code RabbitRouter.byAggregateType()}, or its class
 * @param confirmTimeout how long a publish waits for its confirm before it is reported
 *     {@code UNAVAILABLE}
 * @param maxMessageBytes the largest body plus headers sent; larger events are {@code REJECTED}
 *     without being sent (the default is RabbitMQ 4's {@code max_message_size}; 3.x allows 128 MiB)
 * @param reconnectBackoff after a failed connect, sends fail fast as {@code UNAVAILABLE} for this
 *     long
 * @param exchangeCheckTtl how long an exchange found to exist is trusted
 * @see RabbitPublisherSettings the defaults and limits
 */
public record RabbitPublisherConfig(
    String host,
    int port,
    String virtualHost,
    String username,
    String connectionName,
    String router,
    Duration confirmTimeout,
    int maxMessageBytes,
    Duration reconnectBackoff,
    Duration exchangeCheckTtl) {}
