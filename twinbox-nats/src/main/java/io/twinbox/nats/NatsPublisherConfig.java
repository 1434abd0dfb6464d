package io.twinbox.nats;

import java.time.Duration;

/**
 * The effective settings of a {@link NatsPublisher}, for operators. Holds no secret: server URLs are
 * shown without their user info. Immutable.
 *
 * @param servers the server URL(s), redacted
 * @param router the subject router's description, e.g. {@code SubjectRouter.byAggregateType(twinbox)}
 * @param publishTimeout how long a publish waits for its JetStream ack before it is reported
 *     {@code UNAVAILABLE}
 * @param ownsConnection true when the publisher created its connection (and closes it)
 * @see NatsPublisherSettings the defaults and limits
 */
public record NatsPublisherConfig(String servers, String router, Duration publishTimeout, boolean ownsConnection) {}
