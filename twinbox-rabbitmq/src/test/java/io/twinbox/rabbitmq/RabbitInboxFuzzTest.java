package io.twinbox.rabbitmq;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.impl.LongStringHelper;
import io.twinbox.Inbox;
import io.twinbox.RetryPolicy;
import io.twinbox.rabbitmq.internal.AmqpCloudEvents;
import io.twinbox.testkit.contract.WireFuzz;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, acceptance 2 on RabbitMQ: a seeded stream of good and malformed messages
 * ({@link WireFuzz}) through the real {@link RabbitInboxConsumer} into a real PostgreSQL inbox.
 * Every message ends applied or parked, no handler runs more than {@code maxAttempts} times, the
 * queue empties and the consumer keeps its one connection. The seed is printed; {@code
 * -Dtwinbox.fuzz.seed=<seed>} replays a run.
 */
class RabbitInboxFuzzTest {
  private static final int MAX_ATTEMPTS = 3;
  private static final int MESSAGES = 400;
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
    WireFuzz.createLedger(fixture.dataSource());
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  private static AMQP.BasicProperties properties(WireFuzz.Message m) {
    Map<String, Object> headers = new LinkedHashMap<>();
    String contentType = null;
    for (Map.Entry<String, byte[]> a : m.attributes().entrySet()) {
      if (a.getKey().equals("datacontenttype")) {
        contentType = new String(a.getValue(), StandardCharsets.UTF_8);
      } else {
        headers.put(AmqpCloudEvents.PREFIX + a.getKey(), LongStringHelper.asLongString(a.getValue()));
      }
    }
    m.headers().forEach((k, v) -> headers.put(k, LongStringHelper.asLongString(v)));
    return new AMQP.BasicProperties.Builder().headers(headers).contentType(contentType).messageId(m.transportId())
        .deliveryMode(2).build();
  }

  @Test
  void everyMessageEndsAppliedOrParkedAndTheQueueEmpties() throws Exception {
    long seed = WireFuzz.seedFromProperty();
    System.out.println("RabbitInboxFuzzTest: fuzz seed " + seed);
    WireFuzz fuzz = new WireFuzz(seed, MESSAGES, MAX_ATTEMPTS);
    System.out.println("RabbitInboxFuzzTest: " + fuzz.summary());
    String ex = "tbfuzz." + UUID.randomUUID().toString().substring(0, 8);
    RabbitTopology t = fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    try (Channel ch = fixture.admin().createChannel()) {
      ch.confirmSelect();
      for (WireFuzz.Message m : fuzz.messages()) {
        ch.basicPublish(ex, "fuzz", properties(m), m.data());
      }
      ch.waitForConfirmsOrDie(30_000);
    }

    String consumer = "fuzz-" + ex;
    Inbox inbox = Inbox.builder(fixture.inboxStore(), consumer).build();
    InboxConsumer.Stats stats;
    try (InboxConsumer c = RabbitInboxConsumer.builder(RabbitFixture.factory(RabbitFixture.PORT), t.queue())
        .inbox(inbox, fixture.dataSource()).handler(fuzz.handler(consumer))
        .retryPolicy(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build())
        .build()) {
      c.start();
      await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200))
          .until(() -> fuzz.settled(fixture.dataSource(), consumer));
      try (Channel ch = fixture.admin().createChannel()) {
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
            .until(() -> ch.queueDeclarePassive(t.queue()).getMessageCount() == 0
                && c.stats().processed() + c.stats().parked() + c.stats().duplicates() >= MESSAGES);
      }
      stats = c.stats();
      assertThat(c.isRunning()).as("still consuming").isTrue();
    }

    fuzz.check(fixture.dataSource(), consumer);
    assertThat(stats.processed()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.APPLIED));
    assertThat(stats.parked()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.PARKED));
    assertThat(stats.duplicates()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.DUPLICATE));
    assertThat(stats.sessions()).as("one connection throughout; seed %d", seed).isEqualTo(1);
    assertThat(stats.redelivered()).as("nothing went back to the queue; seed %d", seed).isZero();
  }
}
