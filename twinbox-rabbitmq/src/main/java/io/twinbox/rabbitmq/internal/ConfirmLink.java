package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import io.twinbox.rabbitmq.RabbitDestination;
import io.twinbox.spi.PublishOutcome;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * One connection with one channel in confirm mode, and the publishes it still owes an answer.
 *
 * <p>The client's automatic recovery is off: after a recovery the broker's confirms for the old
 * channel never come, so a recovered channel would leave its publishes hanging. Instead, when the
 * channel or connection closes, every outstanding publish fails as {@code UNAVAILABLE} at once and
 * the publisher opens a fresh link on its next send. Thread-safe: publishes are serialised on a
 * lock, because the sequence number must be read and the message sent as one step.
 */
public final class ConfirmLink {
  private final Connection connection;
  private final Channel channel;
  private final ConfirmTracker tracker;
  private final Object lock = new Object();

  private ConfirmLink(Connection connection, Channel channel, ConfirmTracker tracker) {
    this.connection = connection;
    this.channel = channel;
    this.tracker = tracker;
  }

  /** Connects, opens a channel and puts it in confirm mode. */
  public static ConfirmLink open(ConnectionFactory factory, String connectionName, ConfirmTracker.Counters counters)
      throws IOException, TimeoutException {
    Connection connection = factory.newConnection(connectionName);
    try {
      Channel channel = connection.createChannel();
      if (channel == null) {
        throw new IOException("the broker refused a new channel (channel_max reached)");
      }
      ConfirmTracker tracker = new ConfirmTracker(counters);
      channel.addShutdownListener(s -> tracker.closeAll("channel closed: " + describe(s)));
      connection.addShutdownListener(s -> tracker.closeAll("connection lost: " + describe(s)));
      channel.addReturnListener(r -> tracker.onReturn(r.getProperties().getMessageId() == null ? ""
          : r.getProperties().getMessageId(), r.getReplyCode(), r.getReplyText(), r.getExchange(), r.getRoutingKey()));
      channel.addConfirmListener(tracker::onAck, tracker::onNack);
      channel.confirmSelect();
      return new ConfirmLink(connection, channel, tracker);
    } catch (IOException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  public boolean isOpen() {
    return channel.isOpen() && connection.isOpen();
  }

  public Connection connection() {
    return connection;
  }

  /** Publishes with {@code mandatory}; the future completes when the broker answers or the link dies. */
  public CompletableFuture<PublishOutcome> publish(RabbitDestination to, AmqpCloudEvents.Encoded message,
      String messageId) {
    synchronized (lock) {
      long seq = channel.getNextPublishSeqNo();
      CompletableFuture<PublishOutcome> future = tracker.register(seq, messageId);
      if (future.isDone()) {
        return future;
      }
      try {
        channel.basicPublish(to.exchange(), to.routingKey(), true, message.properties(), message.body());
      } catch (IOException | AlreadyClosedException e) {
        tracker.fail(seq, PublishOutcome.unavailable("publish failed: " + describe(e)));
      }
      return future;
    }
  }

  public int outstanding() {
    return tracker.outstanding();
  }

  /** Closes the connection; outstanding publishes fail as UNAVAILABLE. Idempotent. */
  public void close() {
    tracker.closeAll("the RabbitMQ publisher is closed");
    closeQuietly(connection);
  }

  private static void closeQuietly(Connection connection) {
    try {
      if (connection.isOpen()) {
        connection.close(5_000);
      }
    } catch (IOException | RuntimeException e) {
      connection.abort(1_000);
    }
  }

  /** A failure's class and message; AMQP close reasons carry no secret. */
  public static String describe(Throwable e) {
    if (e instanceof ShutdownSignalException s) {
      return s.getMessage();
    }
    Throwable t = e.getCause() != null && e.getMessage() == null ? e.getCause() : e;
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }
}
