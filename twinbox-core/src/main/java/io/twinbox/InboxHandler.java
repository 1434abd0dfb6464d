package io.twinbox;

import java.sql.Connection;

/**
 * A consumer's business effect. It runs inside the inbox's transaction, on {@code connection}:
 * everything it writes there commits together with the inbox record, or not at all. Work outside
 * that connection (HTTP calls, e-mail) is not protected and may repeat.
 */
@FunctionalInterface
public interface InboxHandler {
  void handle(Connection connection, InboxMessage message) throws Exception;
}
