package io.twinbox.nats;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.JetStream;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.twinbox.Inbox;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.testkit.contract.WireFuzz;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, acceptance 2 on NATS JetStream: a seeded stream of good and malformed messages
 * ({@link WireFuzz}) through the real {@link NatsInboxConsumer} into a real PostgreSQL inbox.
 * Every message ends applied or parked (and terminated), no handler runs more than {@code
 * maxAttempts} times, nothing stays pending or unacknowledged. The seed is printed; {@code
 * -Dtwinbox.fuzz.seed=<seed>} replays a run.
 */
class NatsInboxFuzzTest {
  private static final int MAX_ATTEMPTS = 3;
  private static final int MESSAGES = 400;
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();
  private static NatsFixture fixture;
  private static String stream;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = new NatsFixture();
    WireFuzz.createLedger(fixture.dataSource());
  }

  @AfterAll
  static void tearDown() {
    if (stream != null) {
      NatsStreams.delete(fixture.admin(), stream);
    }
    fixture.close();
  }

  /** Percent-encodes raw bytes as the NATS binding does, so that invalid UTF-8 reaches the decoder. */
  private static String percent(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
      int c = b & 0xff;
      if (c > ' ' && c < 0x7f && c != '"' && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  private static Headers headers(WireFuzz.Message m) {
    Headers h = new Headers();
    for (Map.Entry<String, byte[]> a : m.attributes().entrySet()) {
      h.add(NatsCloudEvents.PREFIX + a.getKey(), percent(a.getValue()));
    }
    m.headers().forEach((k, v) -> h.add(k, percent(v)));
    return h;
  }

  @Test
  void everyMessageEndsAppliedOrParkedAndNothingStaysPending() throws Exception {
    long seed = WireFuzz.seedFromProperty();
    System.out.println("NatsInboxFuzzTest: fuzz seed " + seed);
    WireFuzz fuzz = new WireFuzz(seed, MESSAGES, MAX_ATTEMPTS);
    System.out.println("NatsInboxFuzzTest: " + fuzz.summary());
    String name = "fuzz" + UUID.randomUUID().toString().substring(0, 8);
    stream = "TB_" + name.toUpperCase();
    // The server's own message limit (1 MB), not the fixture's 64 KB: huge payloads are part of the fuzz.
    NatsStreams.ensure(fixture.admin(), StreamConfiguration.builder().name(stream).subjects("tbfuzz." + name + ".>")
        .storageType(StorageType.File).build());
    JetStream js = fixture.admin().jetStream();
    for (WireFuzz.Message m : fuzz.messages()) {
      js.publish("tbfuzz." + name + ".x", headers(m), m.data()); // no Nats-Msg-Id: the reused ids must arrive
    }

    String consumer = "fuzz-" + name;
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(fixture.store()), consumer).build();
    InboxConsumer.Stats stats;
    try (InboxConsumer c = NatsInboxConsumer.builder(NatsFixture.url(NatsFixture.PORT), stream, consumer)
        .inbox(inbox, fixture.dataSource()).handler(fuzz.handler(consumer))
        .retryPolicy(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build())
        .build()) {
      c.start();
      await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200))
          .until(() -> fuzz.settled(fixture.dataSource(), consumer));
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).until(() -> {
        ConsumerInfo info = fixture.admin().jetStreamManagement().getConsumerInfo(stream, consumer);
        return info.getNumPending() == 0 && info.getNumAckPending() == 0;
      });
      stats = c.stats();
      assertThat(c.isRunning()).as("still consuming").isTrue();
    }

    fuzz.check(fixture.dataSource(), consumer);
    assertThat(stats.processed()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.APPLIED));
    assertThat(stats.parked()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.PARKED));
    assertThat(stats.terminated()).as("every parked message terminated; seed %d", seed).isEqualTo(stats.parked());
    assertThat(stats.duplicates()).as("seed %d", seed).isEqualTo(fuzz.expected(WireFuzz.Outcome.DUPLICATE));
    assertThat(stats.redelivered()).as("nothing redelivered; seed %d", seed).isZero();
  }
}
