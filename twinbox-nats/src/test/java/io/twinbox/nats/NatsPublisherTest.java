package io.twinbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.contract.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The publisher on the local NATS server: deduplication window, wire format, outages, secrets. */
class NatsPublisherTest {
  private static Connection admin;
  private static final List<String> streams = new ArrayList<>();

  @BeforeAll
  static void connect() throws Exception {
    LocalServers.require("NATS", NatsFixture.HOST, NatsFixture.PORT);
    admin = Nats.connect(NatsFixture.url(NatsFixture.PORT));
  }

  @AfterAll
  static void cleanUp() throws Exception {
    streams.forEach(s -> NatsStreams.delete(admin, s));
    admin.close();
  }

  private static String stream(String subjectPrefix, Duration duplicateWindow) {
    String name = "TBP_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    NatsStreams.ensure(admin, StreamConfiguration.builder().name(name).subjects(subjectPrefix + ".>")
        .storageType(StorageType.Memory).duplicateWindow(duplicateWindow).build());
    streams.add(name);
    return name;
  }

  static OutboxMessage full(String aggregateId) {
    Instant at = Instant.parse("2025-03-01T10:15:30.123456Z");
    return new OutboxMessage(7, UUID.fromString("0195a3c4-1111-7abc-8def-0123456789ab"), "Order", aggregateId, 42, 3,
        "com.example.OrderPlaced", 2, "{\"total\":42,\"note\":\"naïve\"}", Map.of("tenant", "acme é"), "corr-1",
        "cause-1", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", at, at, 0, "/orders-service");
  }

  @Test
  void aRepublishWithinTheDuplicateWindowIsDroppedAndCountedAndOneAfterItIsStored() throws Exception {
    String prefix = "tbp." + UUID.randomUUID().toString().substring(0, 8);
    String s = stream(prefix, Duration.ofSeconds(2));
    try (NatsPublisher p = NatsPublisher.builder(NatsFixture.url(NatsFixture.PORT))
        .subjectRouter(m -> prefix + ".x").build()) {
      OutboxMessage m = full("o-1");
      long first = System.nanoTime();
      assertThat(p.send(m).get(10, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.send(m).get(10, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      assertThat(p.stats()).isEqualTo(new NatsPublisher.Stats(2, 1));
      assertThat(admin.jetStreamManagement().getStreamInfo(s).getStreamState().getMsgCount()).isEqualTo(1);
      // Probe until a republish is stored again: that moment measures the window.
      long storedAgainAfter = -1;
      for (int i = 0; i < 40 && storedAgainAfter < 0; i++) {
        Thread.sleep(250);
        long before = p.stats().duplicates();
        assertThat(p.send(m).get(10, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
        if (p.stats().duplicates() == before) {
          storedAgainAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - first);
        }
      }
      System.out.printf("NATS duplicate window 2000 ms: republishes dropped until %d ms after the first publish "
          + "(%d dropped)%n", storedAgainAfter, p.stats().duplicates());
      assertThat(storedAgainAfter).isBetween(2_000L, 6_000L);
      assertThat(admin.jetStreamManagement().getStreamInfo(s).getStreamState().getMsgCount()).isEqualTo(2);
    }
  }

  @Test
  void theWireFormatIsTheCloudEventsNatsBindingInBinaryMode() throws Exception {
    String prefix = "tbp." + UUID.randomUUID().toString().substring(0, 8);
    String s = stream(prefix, NatsStreams.DEFAULT_DUPLICATE_WINDOW);
    try (NatsPublisher p = NatsPublisher.builder(admin).subjectRouter(x -> prefix + ".order").build()) {
      assertThat(p.send(full("order 7/ü")).get(10, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
    }
    assertThat(admin.getStatus()).as("the user's connection stays open").isEqualTo(Connection.Status.CONNECTED);
    MessageInfo stored = admin.jetStreamManagement().getMessage(s, 1);
    Headers h = stored.getHeaders();
    Map<String, String> wire = new TreeMap<>();
    h.entrySet().forEach(e -> wire.put(e.getKey(), e.getValue().get(0)));
    System.out.println("NATS wire headers: " + wire);
    assertThat(wire).containsEntry("Nats-Msg-Id", "0195a3c4-1111-7abc-8def-0123456789ab")
        .containsEntry("ce-specversion", "1.0")
        .containsEntry("ce-id", "0195a3c4-1111-7abc-8def-0123456789ab")
        .containsEntry("ce-source", "/orders-service")
        .containsEntry("ce-type", "com.example.OrderPlaced")
        .containsEntry("ce-datacontenttype", "application/json")
        .containsEntry("ce-subject", "order%207/%C3%BC")
        .containsEntry("ce-time", "2025-03-01T10:15:30.123456Z")
        .containsEntry("ce-aggregatetype", "Order")
        .containsEntry("ce-sequence", "42")
        .containsEntry("ce-partitionkey", "order%207/%C3%BC")
        .containsEntry("ce-dataversion", "2")
        .containsEntry("ce-correlationid", "corr-1")
        .containsEntry("ce-causationid", "cause-1")
        .containsEntry("ce-traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .containsEntry("tenant", "acme%20%C3%A9")
        .hasSize(16);
    assertThat(new String(stored.getData(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":42,\"note\":\"naïve\"}");
    assertThat(stored.getSubject()).isEqualTo(prefix + ".order");
  }

  @Test
  void theDefaultSubjectIsPrefixAggregateTypeAndType() {
    assertThat(SubjectRouter.byAggregateType().subjectFor(full("o"))).isEqualTo("twinbox.order.com.example.OrderPlaced");
  }

  @Test
  void aLostConnectionIsUnavailableAndTheRepublishAfterItIsDropped() throws Exception {
    String prefix = "tbp." + UUID.randomUUID().toString().substring(0, 8);
    String s = stream(prefix, NatsStreams.DEFAULT_DUPLICATE_WINDOW);
    try (TcpProxy proxy = TcpProxy.start(NatsFixture.HOST, NatsFixture.PORT);
        NatsPublisher p = NatsPublisher.builder(NatsFixture.url(proxy.port())).subjectRouter(m -> prefix + ".x")
            .publishTimeout(Duration.ofSeconds(2)).build()) {
      assertThat(p.send(TestMessages.next()).get(10, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      List<OutboxMessage> during = List.of(TestMessages.next(), TestMessages.next(), TestMessages.next());
      proxy.cut();
      List<CompletableFuture<PublishOutcome>> outcomes = during.stream().map(p::send).toList();
      for (CompletableFuture<PublishOutcome> f : outcomes) {
        assertThat(f.get(20, TimeUnit.SECONDS).kind()).isEqualTo(Kind.UNAVAILABLE);
      }
      proxy.restore();
      // The client flushes what it buffered once reconnected; the relay's republish is dropped.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      List<OutboxMessage> pending = new ArrayList<>(during);
      while (!pending.isEmpty() && System.nanoTime() < deadline) {
        pending.removeIf(m -> p.send(m).join().kind() == Kind.ACKED);
        Thread.sleep(200);
      }
      assertThat(pending).isEmpty();
      assertThat(admin.jetStreamManagement().getStreamInfo(s).getStreamState().getMsgCount()).isEqualTo(4);
    }
  }

  @Test
  void aClosedPublisherAnswersUnavailable() throws Exception {
    NatsPublisher p = NatsPublisher.builder(NatsFixture.url(NatsFixture.PORT)).build();
    p.close();
    assertThat(p.send(TestMessages.next()).get().kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aPasswordInTheUrlIsNeverShown() {
    String canary = "s3cret-canary-" + UUID.randomUUID();
    try (NatsPublisher p = NatsPublisher.builder("nats://relay:" + canary + "@127.0.0.1:1").build()) {
      assertThat(p.config().toString()).doesNotContain(canary).contains("***@127.0.0.1:1");
    }
    assertThatThrownBy(() -> NatsPublisher.builder("nats://relay:" + canary + "@[bad").build())
        .satisfies(e -> assertThat(String.valueOf(e.getMessage())).doesNotContain(canary));
  }

  /** Unordered test messages with fresh ids. */
  static final class TestMessages {
    static OutboxMessage next() {
      Instant now = Instant.now();
      return new OutboxMessage(1, UUID.randomUUID(), "Order", "o-" + UUID.randomUUID(), 1, 0, "OrderPlaced", 1,
          "{}", Map.of(), null, null, null, now, now, 0, "/orders-service");
    }
  }
}
