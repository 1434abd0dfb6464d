package io.twinbox.nats.internal;

import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import java.sql.Connection;
import java.util.HashSet;
import java.util.Set;

/**
 * Wraps the user's handler to remember which messages failed and have not succeeded since: when the
 * inbox then reports such a message done, it was parked, and the consumer terminates it on the
 * server ({@code term()}) instead of acknowledging it. Confined to the consumer thread.
 */
public final class ParkWatch implements InboxHandler {
  private final InboxHandler handler;
  private final Set<String> failing = new HashSet<>();

  public ParkWatch(InboxHandler handler) {
    this.handler = handler;
  }

  @Override
  public void handle(Connection connection, InboxMessage message) throws Exception {
    try {
      handler.handle(connection, message);
    } catch (Exception | Error e) {
      failing.add(message.id());
      throw e;
    }
    failing.remove(message.id());
  }

  /** True (once) when {@code id}'s handler failed last time it ran. */
  public boolean takeFailed(String id) {
    return failing.remove(id);
  }
}
