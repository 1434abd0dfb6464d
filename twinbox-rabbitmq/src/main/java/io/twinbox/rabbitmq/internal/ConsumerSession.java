package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeoutException;

/**
 * One connection and channel consuming one queue with manual acknowledgements and a prefetch
 * limit. Deliveries go to the consumer thread's buffer tagged with their session, because a delivery
 * tag means nothing on another channel: after a reconnect the old session's deliveries are dropped
 * (the broker redelivers them). Thread-safe.
 */
public final class ConsumerSession {
  /** A delivery and the session it arrived on. */
  public record Received(ConsumerSession session, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
    /** Delivered before: the redelivered flag, or a quorum queue's {@code x-delivery-count}. */
    public boolean redelivered() {
      if (envelope.isRedeliver()) {
        return true;
      }
      Object count = properties.getHeaders() == null ? null : properties.getHeaders().get("x-delivery-count");
      return count instanceof Number n && n.longValue() > 0;
    }
  }

  private final Connection connection;
  private final Channel channel;
  private volatile boolean dead;

  private ConsumerSession(Connection connection, Channel channel) {
    this.connection = connection;
    this.channel = channel;
  }

  /** Connects and starts consuming {@code queue} into {@code buffer}. */
  public static ConsumerSession open(ConnectionFactory factory, String connectionName, String queue, int prefetch,
      BlockingQueue<Received> buffer) throws IOException, TimeoutException {
    Connection connection = factory.newConnection(connectionName);
    try {
      Channel channel = connection.createChannel();
      if (channel == null) {
        throw new IOException("the broker refused a new channel (channel_max reached)");
      }
      channel.basicQos(prefetch);
      ConsumerSession session = new ConsumerSession(connection, channel);
      channel.basicConsume(queue, false, connectionName, new DefaultConsumer(channel) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
          buffer.add(new Received(session, envelope, props, body));
        }

        @Override
        public void handleCancel(String consumerTag) {
          session.dead = true; // the queue was deleted: reconnect, and fail loudly until it is back
        }

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
          session.dead = true;
        }
      });
      return session;
    } catch (IOException | RuntimeException e) {
      connection.abort(1_000);
      throw e;
    }
  }

  public boolean isOpen() {
    return !dead && channel.isOpen();
  }

  /** Acknowledges every delivery up to and including {@code tag} on this channel. */
  public void ackUpTo(long tag) throws IOException {
    channel.basicAck(tag, true);
  }

  /** Closes the connection; unacknowledged deliveries go back to the queue. */
  public void close() {
    dead = true;
    try {
      if (connection.isOpen()) {
        connection.close(5_000);
      }
    } catch (IOException | RuntimeException e) {
      connection.abort(1_000);
    }
  }
}
