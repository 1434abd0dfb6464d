package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.twinbox.spi.ReceivedMessage;
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
  public record Received(ConsumerSession session, Envelope envelope, AMQP.BasicProperties properties, byte[] body,
      ReceivedMessage decoded) {
    /** Delivered before: the redelivered flag, or a quorum queue's {@code x-delivery-count}. */
    public boolean redelivered() {
      if (envelope.isRedeliver()) {
        return true;
      }
      Object count = properties.getHeaders() == null ? null : properties.getHeaders().get("x-delivery-count");
      return count instanceof Number n && n.longValue() > 0;
    }

    /** The delivery as the consumer's item; {@code origin} is {@code queue@deliveryTag}. */
    public ReceivedMessage decode(String queue) {
      return decoded != null ? decoded
          : ReceivedMessage.of(AmqpCloudEvents.decode(properties, body, queue + "@" + envelope.getDeliveryTag()),
              redelivered());
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
          buffer.add(received(session, queue, envelope, props, body));
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

  /**
   * Decodes on the client's delivery thread, so that the consumer's thread finds the message ready
   * while its previous transaction ran. Decoding is total (an unreadable message becomes an
   * undecodable item); should it still throw, the item is decoded again on the consumer's thread,
   * where the failure is handled, rather than here, where it would close the channel.
   */
  private static Received received(ConsumerSession session, String queue, Envelope envelope,
      AMQP.BasicProperties props, byte[] body) {
    Received r = new Received(session, envelope, props, body, null);
    try {
      return new Received(session, envelope, props, body, r.decode(queue));
    } catch (RuntimeException e) {
      return r;
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
