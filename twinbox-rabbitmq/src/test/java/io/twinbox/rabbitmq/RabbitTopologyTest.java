package io.twinbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The declared topology on the local RabbitMQ: quorum queue, delivery limit, dead-lettering. */
class RabbitTopologyTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  @Test
  void aMessageTheBrokerGivesUpOnLandsInTheDeadLetterQueueAndDeclaringIsIdempotent() throws Exception {
    String ex = "tbt." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").bindingKeys("Order.#")
        .deliveryLimit(1).build());
    t.declare(fixture.admin()); // again: nothing changes, nothing fails
    try (Channel ch = fixture.admin().createChannel()) {
      ch.basicPublish(ex, "Order.Placed", true, new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
          "x".getBytes(StandardCharsets.UTF_8));
      // Returned twice (more than the delivery limit of 1): the quorum queue dead-letters it.
      for (int i = 0; i < 2; i++) {
        GetResponse r = await().atMost(Duration.ofSeconds(10)).until(() -> ch.basicGet(t.queue(), false),
            x -> x != null);
        ch.basicNack(r.getEnvelope().getDeliveryTag(), false, true);
      }
      GetResponse dead = await().atMost(Duration.ofSeconds(10)).until(() -> ch.basicGet(t.deadLetterQueue(), true),
          x -> x != null);
      assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("x");
      assertThat(ch.queueDeclarePassive(t.queue()).getMessageCount()).isZero();
      assertThat(t.toString()).contains("deliveryLimit=1");
    }
  }
}
