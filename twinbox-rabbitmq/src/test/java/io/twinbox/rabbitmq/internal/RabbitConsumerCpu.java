package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.testkit.cpu.ConsumerCpu;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RabbitMQ consumer's CPU per message ({@link ConsumerCpu}): deliveries as {@link
 * AmqpCloudEvents#encode} publishes them, their text headers as {@code LongString} (as the client
 * delivers them), decoded as {@code ConsumerSession} does. Not a test; a {@code main} run by hand.
 */
public final class RabbitConsumerCpu {
  private record Delivery(AMQP.BasicProperties properties, byte[] body) {}

  private RabbitConsumerCpu() {}

  public static void main(String[] args) throws InterruptedException {
    List<Delivery> wire = new ArrayList<>();
    for (OutboxMessage m : ConsumerCpu.outboxMessages(1000)) {
      AmqpCloudEvents.Encoded e = AmqpCloudEvents.encode(m, URI.create("/orders"));
      Map<String, Object> delivered = new LinkedHashMap<>();
      e.properties().getHeaders().forEach((k, v) -> delivered.put(k, v instanceof String s
          ? LongStringHelper.asLongString(s) : v));
      wire.add(new Delivery(e.properties().builder().headers(delivered).build(), e.body()));
    }
    ConsumerCpu.run("rabbitmq", wire, (d, n) -> ReceivedMessage.of(
        AmqpCloudEvents.decode(d.properties(), d.body(), "orders@" + (n + 1)), false));
  }
}
