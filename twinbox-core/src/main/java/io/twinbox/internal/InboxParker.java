package io.twinbox.internal;

import io.twinbox.spi.Printable;
import io.twinbox.InboxMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks one message in a transaction of its own, for the {@link InboxRunner}. A message whose id
 * the inbox holds already is a duplicate if its content is the same (a redelivery of a message
 * parked or processed before); if not, it is a different message reusing the id — a same-id
 * conflict, a reused AMQP message-id, Kafka's {@code kafka:<topic>-<p>@<offset>} after the topic
 * was recreated — and is parked under {@link InboxIds#taken}, derived from its content, so that its
 * own redelivery is recognised too. The listener hears of each park and each refused park.
 * Thread-safe if the inbox is; the runner uses one per thread.
 */
final class InboxParker {
  private static final Logger log = LoggerFactory.getLogger(InboxParker.class);

  /** How a park ended. */
  enum Result { PARKED, DUPLICATE, REFUSED }

  private final InboxEngine inbox;
  private final DataSource dataSource;

  InboxParker(InboxEngine inbox, DataSource dataSource) {
    this.inbox = inbox;
    this.dataSource = dataSource;
  }

  Result park(InboxMessage m, String reason, int attempts) {
    String hash = PayloadHash.of(m);
    InboxMessage target = m;
    String why = reason;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        boolean fresh = recordOne(c, m.id(), hash);
        if (!fresh && !hash.equals(inbox.store().storedHashes(c, inbox.consumer(), List.of(m.id())).get(m.id()))) {
          target = withId(m, InboxIds.taken(m.id(), hash));
          why = reason + " (id " + m.id() + " already belongs to a different message; parked as " + target.id() + ")";
          fresh = recordOne(c, target.id(), hash);
        }
        if (fresh) {
          inbox.store().park(c, inbox.consumer(), target, hash, why, attempts);
        }
        inbox.store().clearAttempts(c, inbox.consumer(), m.id());
        c.commit();
        if (!fresh) {
          return Result.DUPLICATE;
        }
      } catch (SQLException | RuntimeException e) {
        InboxRunner.rollback(c, e);
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("consumer {}: could not park message {}: {}", inbox.consumer(), Printable.of(m.id()), Reasons.of(e));
      inbox.reportParkFailed(m, Reasons.of(e));
      return Result.REFUSED;
    }
    // The id, type and origin arrived from the wire: printed with their control characters escaped.
    log.error("consumer {}: parked message {} ({}, from {}): {}", inbox.consumer(), Printable.of(target.id()),
        Printable.of(m.type()), Printable.of(m.origin()), Printable.of(why));
    inbox.reportParked(target, why);
    return Result.PARKED;
  }

  /** Records one id; the store's park records it too, idempotently. */
  private boolean recordOne(Connection c, String id, String hash) {
    return !inbox.store().record(c, inbox.consumer(), Map.of(id, hash)).isEmpty();
  }

  static InboxMessage withId(InboxMessage m, String id) {
    return new InboxMessage(id, m.type(), m.version(), m.source(), m.aggregateType(), m.aggregateId(), m.sequence(),
        m.payload(), m.headers(), m.correlationId(), m.causationId(), m.traceparent(), m.time(), m.origin());
  }
}
