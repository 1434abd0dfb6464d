package io.twinbox.internal;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the consumer's runner needs of an inbox beyond {@link Inbox}: processing without telling the
 * listener (it reports only after the commit, so a batch rolled back and retried is not counted
 * twice), conflicts deferred to a transaction of their own, and the listener for what happens
 * outside {@code processAll} (parks, the commit latency). {@link DefaultInbox} is one; any other
 * {@code Inbox} (a user's decorator) is driven through {@link #of} by its public methods only.
 */
public interface InboxEngine extends Inbox {

  /** As {@link DefaultInbox#processQuietly(Connection, List, InboxHandler, boolean)}. */
  DefaultInbox.Batch processQuietly(Connection connection, List<InboxMessage> messages, InboxHandler handler,
      boolean deferConflicts);

  /** As {@link DefaultInbox#processQuietly(Connection, List, InboxHandler, boolean, boolean)}. */
  default DefaultInbox.Batch processQuietly(Connection connection, List<InboxMessage> messages, InboxHandler handler,
      boolean deferConflicts, boolean parkOverdue) {
    return processQuietly(connection, messages, handler, deferConflicts);
  }

  /** Tells the listener the outcomes of a committed batch. */
  void report(DefaultInbox.Batch batch);

  /** Tells the listener about a message parked outside {@code processAll}. */
  void reportParked(InboxMessage message, String reason);

  /** Tells the listener that a park could not be stored. */
  void reportParkFailed(InboxMessage message, String reason);

  /** The listener, for reports made outside the engine (the parked-message forwarder); NONE by default. */
  default io.twinbox.InboxListener listener() {
    return io.twinbox.InboxListener.NONE;
  }

  /** Tells the listener a message's transaction committed, and how long after receipt and after the event. */
  void reportCommitted(InboxMessage message, Duration sinceReceived, Duration sinceEvent);

  /**
   * DELTA ordering: parks the messages held longer than {@code gapTimeout}, in the transaction of
   * {@code connection}, and returns them, to be reported after the commit; nothing with another
   * ordering. Each batch does this too; the consumer calls it when there may be no batch at all (a
   * quiet stream), or a hold would outlive its timeout unseen.
   */
  default List<DefaultInbox.Parked> parkOverdueHeld(Connection connection) {
    Inbox.InboxConfig config = config();
    if (config.ordering() != InboxOrdering.DELTA) {
      return List.of();
    }
    OrderingGuard guard = new OrderingGuard(store(), connection, config.consumer(), config.ordering(), List.of());
    return DefaultInbox.parkOverdue(store(), connection, config, guard);
  }

  /** {@code inbox} itself when it is an engine, else an engine over its public methods. */
  static InboxEngine of(Inbox inbox) {
    return inbox instanceof InboxEngine e ? e : new PublicInboxEngine(inbox);
  }

  /**
   * An engine over an {@code Inbox} known only by its interface: {@code processAll} reports to its
   * own listener (before the commit, as it must), conflicts are parked by it in the batch, and
   * nothing more can be reported.
   */
  final class PublicInboxEngine implements InboxEngine {
    private final Inbox inbox;

    PublicInboxEngine(Inbox inbox) {
      this.inbox = inbox;
    }

    @Override
    public DefaultInbox.Batch processQuietly(Connection connection, List<InboxMessage> messages,
        InboxHandler handler, boolean deferConflicts) {
      List<String> noReasons = new ArrayList<>(Collections.nCopies(messages.size(), null));
      return new DefaultInbox.Batch(List.copyOf(messages), inbox.processAll(connection, messages, handler), noReasons,
          null);
    }

    @Override
    public void report(DefaultInbox.Batch batch) {}

    @Override
    public void reportParked(InboxMessage message, String reason) {}

    @Override
    public void reportParkFailed(InboxMessage message, String reason) {}

    @Override
    public void reportCommitted(InboxMessage message, Duration sinceReceived, Duration sinceEvent) {}

    @Override
    public io.twinbox.InboxOutcome process(Connection connection, InboxMessage message, InboxHandler handler) {
      return inbox.process(connection, message, handler);
    }

    @Override
    public List<io.twinbox.InboxOutcome> processAll(Connection connection, List<InboxMessage> messages,
        InboxHandler handler) {
      return inbox.processAll(connection, messages, handler);
    }

    @Override
    public String consumer() {
      return inbox.consumer();
    }

    @Override
    public io.twinbox.spi.InboxStore store() {
      return inbox.store();
    }

    @Override
    public InboxConfig config() {
      return inbox.config();
    }
  }
}
