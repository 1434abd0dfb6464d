package io.twinbox.nats.internal;

import io.nats.client.Message;
import io.nats.client.impl.NatsMessage;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.testkit.cpu.ConsumerCpu;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The NATS consumer's CPU per message ({@link ConsumerCpu}): messages with the headers {@link
 * NatsCloudEvents#headers} publishes, decoded as {@code NatsSource}'s reader does (plain NATS
 * messages: the JetStream metadata the client parses from the reply subject is left out). Not a
 * test; a {@code main} run by hand.
 */
public final class NatsConsumerCpu {
  private NatsConsumerCpu() {}

  public static void main(String[] args) throws InterruptedException {
    List<Message> wire = new ArrayList<>();
    for (OutboxMessage m : ConsumerCpu.outboxMessages(1000)) {
      wire.add(NatsMessage.builder().subject("tb.orders." + m.aggregateId())
          .headers(NatsCloudEvents.headers(m, URI.create("/orders")))
          .data(m.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8)).build());
    }
    ConsumerCpu.run("nats", wire, (msg, n) -> ReceivedMessage.of(NatsCloudEvents.decode(msg), false));
  }
}
