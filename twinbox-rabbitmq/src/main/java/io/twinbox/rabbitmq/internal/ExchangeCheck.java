package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Tells whether an exchange exists, with a passive declare on a throw-away channel, and remembers
 * the answer "yes" for a while.
 *
 * <p>Why: publishing to a missing exchange makes the broker close the publishing channel (404), and
 * that would fail every other publish in flight on it as ambiguous. Checking first turns a missing
 * exchange into a clean {@code REJECTED} for the one event. "No" is not cached, so an exchange
 * declared later is seen at once. Thread-safe.
 */
public final class ExchangeCheck {
  private static final int NOT_FOUND = 404;
  private final Map<String, Long> known = new ConcurrentHashMap<>();
  private final long ttlNanos;
  private final LongSupplier nanoTime;

  public ExchangeCheck(long ttlNanos, LongSupplier nanoTime) {
    this.ttlNanos = ttlNanos;
    this.nanoTime = nanoTime;
  }

  /**
   * @return false when the broker says the exchange does not exist
   * @throws IOException when the broker could not answer
   */
  public boolean exists(Connection connection, String exchange) throws IOException {
    Long until = known.get(exchange);
    long now = nanoTime.getAsLong();
    if (until != null && until - now > 0) {
      return true;
    }
    Channel ch = connection.createChannel();
    if (ch == null) {
      throw new IOException("the broker refused a new channel (channel_max reached)");
    }
    try {
      ch.exchangeDeclarePassive(exchange);
    } catch (IOException e) {
      if (e.getCause() instanceof ShutdownSignalException s && !s.isHardError()
          && s.getReason() instanceof com.rabbitmq.client.AMQP.Channel.Close close && close.getReplyCode() == NOT_FOUND) {
        known.remove(exchange);
        return false; // the broker closed the throw-away channel itself
      }
      throw e;
    }
    try {
      ch.close();
    } catch (TimeoutException | IOException | RuntimeException e) {
      ch.abort();
    }
    known.put(exchange, now + ttlNanos);
    return true;
  }

  /** Forgets every answer: called on a new connection, since the old one may have died of a 404. */
  public void forgetAll() {
    known.clear();
  }
}
