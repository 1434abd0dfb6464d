package io.twinbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import io.twinbox.testkit.contract.TcpProxy;
import io.twinbox.testkit.contract.TransportContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Outcome classification on the local RabbitMQ: nack, return, missing exchange, lost connection. */
class RabbitPublisherTest {
  private static RabbitFixture fixture;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new RabbitFixture();
  }

  @AfterAll
  static void tearDown() {
    fixture.close();
  }

  private static String name() {
    return "tbp." + UUID.randomUUID().toString().substring(0, 8);
  }

  private static OutboxMessage msg(String aggregateId) {
    return TransportContract.message(aggregateId, 1, "{\"a\":1}");
  }

  private static PublishOutcome get(CompletableFuture<PublishOutcome> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  @Test
  void aNackIsRetryAndCounted() throws Exception {
    String ex = name();
    fixture.declare(RabbitTopology.builder(ex).build());
    try (Channel ch = fixture.admin().createChannel()) {
      // A full classic queue with reject-publish: the broker nacks what it cannot enqueue.
      ch.queueDeclare(ex + ".full", false, false, true, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
      ch.queueBind(ex + ".full", ex, "#");
      try (RabbitPublisher p = fixture.publisherBuilder().router(RabbitRouter.fixed(ex)).build()) {
        assertThat(get(p.send(msg("n-1")))).isEqualTo(PublishOutcome.acked());
        PublishOutcome second = get(p.send(msg("n-2")));
        assertThat(second.kind()).isEqualTo(Kind.RETRY);
        assertThat(second.reason()).contains("basic.nack");
        assertThat(p.stats().nacked()).isEqualTo(1);
      }
      ch.queueDelete(ex + ".full");
    }
  }

  @Test
  void unroutableAndMissingExchangesAreRejectedWithoutHarmingTheirNeighbours() throws Exception {
    String good = name();
    String unbound = name();
    fixture.declare(RabbitTopology.builder(good).queue(good + ".q").build());
    fixture.declare(RabbitTopology.builder(unbound).build());
    String missing = name();
    RabbitRouter router = m -> new RabbitDestination(
        m.aggregateId().startsWith("u") ? unbound : m.aggregateId().startsWith("m") ? missing : good, m.type());
    try (RabbitPublisher p = fixture.publisherBuilder().router(router).build()) {
      List<CompletableFuture<PublishOutcome>> wave = new ArrayList<>();
      for (String id : List.of("g-1", "u-1", "g-2", "m-1", "g-3")) {
        wave.add(p.send(msg(id)));
      }
      assertThat(get(wave.get(0))).isEqualTo(PublishOutcome.acked());
      assertThat(get(wave.get(1)).kind()).isEqualTo(Kind.REJECTED);
      assertThat(get(wave.get(1)).reason()).contains("unroutable").contains("312 NO_ROUTE").contains(unbound);
      assertThat(get(wave.get(2))).isEqualTo(PublishOutcome.acked());
      assertThat(get(wave.get(3)).kind()).isEqualTo(Kind.REJECTED);
      assertThat(get(wave.get(3)).reason()).contains("exchange '" + missing + "' does not exist");
      assertThat(get(wave.get(4))).isEqualTo(PublishOutcome.acked());
      assertThat(p.stats().returned()).isEqualTo(1);
      assertThat(p.stats().connections()).as("no channel was lost").isEqualTo(1);
    }
  }

  @Test
  void aLostConnectionFailsOutstandingConfirmsAsUnavailableAndTheNextSendReconnects() throws Exception {
    String ex = name();
    fixture.declare(RabbitTopology.builder(ex).queue(ex + ".q").build());
    try (TcpProxy proxy = TcpProxy.start(RabbitFixture.HOST, RabbitFixture.PORT);
        RabbitPublisher p = RabbitPublisher.builder(RabbitFixture.factory(proxy.port())).router(RabbitRouter.fixed(ex))
            .reconnectBackoff(Duration.ofMillis(100)).build()) {
      assertThat(get(p.send(msg("c-0")))).isEqualTo(PublishOutcome.acked());
      List<CompletableFuture<PublishOutcome>> inFlight = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        inFlight.add(p.send(msg("c-" + i)));
      }
      proxy.cut();
      int unavailable = 0;
      for (CompletableFuture<PublishOutcome> f : inFlight) {
        PublishOutcome o = get(f);
        assertThat(o.kind()).as(o.toString()).isIn(Kind.ACKED, Kind.UNAVAILABLE);
        unavailable += o.kind() == Kind.UNAVAILABLE ? 1 : 0;
      }
      System.out.printf("RabbitMQ connection cut with 300 publishes in flight: %d acked, %d unavailable%n",
          300 - unavailable, unavailable);
      assertThat(get(p.send(msg("c-down"))).kind()).isEqualTo(Kind.UNAVAILABLE);
      proxy.restore();
      Thread.sleep(150); // past the reconnect backoff
      assertThat(get(p.send(msg("c-back")))).isEqualTo(PublishOutcome.acked());
      assertThat(p.stats().connections()).isEqualTo(2);
    }
  }

  @Test
  void aClosedPublisherAnswersUnavailable() throws Exception {
    RabbitPublisher p = fixture.publisherBuilder().build();
    p.close();
    assertThat(get(p.send(msg("x"))).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aPasswordIsNeverShown() {
    String canary = "s3cret-canary-" + UUID.randomUUID();
    try (RabbitPublisher p = RabbitPublisher.builder("amqp://relay:" + canary + "@127.0.0.1:1/%2f").build()) {
      assertThat(p.config().toString()).doesNotContain(canary).contains("relay");
      assertThat(p.send(msg("x")).join().reason()).doesNotContain(canary);
    }
    assertThatThrownBy(() -> RabbitPublisher.builder("amqp://relay:" + canary + "@[bad/%2f"))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(canary));
  }
}
