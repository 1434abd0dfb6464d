package io.twinbox;

import java.sql.Connection;
import java.util.List;

/**
 * A consumer's business effect for several messages at once, so that it can batch its statements
 * (one JDBC batch of UPDATEs instead of a round trip per message). It runs inside the inbox's
 * transaction, on {@code connection}, and receives only the messages seen for the first time, in
 * their order; duplicates and conflicting ids never reach it.
 *
 * <pre>{@code
 * InboxBatchHandler debit = (c, messages) -> {
 *   try (PreparedStatement ps = c.prepareStatement("UPDATE wallet SET balance = balance - ? WHERE id = ?")) {
 *     for (InboxMessage m : messages) {
 *       ps.setLong(1, amountOf(m));
 *       ps.setString(2, walletOf(m));
 *       ps.addBatch();
 *     }
 *     ps.executeBatch();
 *   }
 * };
 * }</pre>
 *
 * <p>When {@link #handleAll} throws for more than one message, no single message is to blame: the
 * consumer adapters then roll back and run the same messages one at a time, which finds the
 * failing one, counts its attempt and parks it when its attempts are exhausted. A call of {@link
 * Inbox#processAll} reports such a failure as an {@link InboxHandlerException} whose {@code
 * index()} is {@code -1}.
 */
@FunctionalInterface
public interface InboxBatchHandler extends InboxHandler {
  /** Applies the effects of {@code messages} (at least one, all new to this consumer, in order). */
  void handleAll(Connection connection, List<InboxMessage> messages) throws Exception;

  /** One message: {@link #handleAll} with a list of one. */
  @Override
  default void handle(Connection connection, InboxMessage message) throws Exception {
    handleAll(connection, List.of(message));
  }
}
