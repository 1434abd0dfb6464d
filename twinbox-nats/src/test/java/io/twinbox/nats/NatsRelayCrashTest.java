package io.twinbox.nats;

import io.twinbox.InboxConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.twinbox.Inbox;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.internal.ChildProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance (FAULTS B2, C4, C8): a relay JVM killed with {@code kill -9} after JetStream
 * acknowledged its publishes but before it marked them. The relay that takes over republishes
 * every one of them; JetStream drops each republish as a duplicate of its {@code Nats-Msg-Id}
 * (counted by the publisher), the stream holds each event once, and the inbox sees one effect each.
 */
class NatsRelayCrashTest {
  private static final int EVENTS = 12;
  private static final Duration LEASE_TTL = Duration.ofSeconds(2);
  private static PostgresDatabase db;
  private static JdbcStore store;
  private static Connection admin;
  private static String stream;

  @BeforeAll
  static void setUp() throws Exception {
    LocalServers.require("NATS", NatsFixture.HOST, NatsFixture.PORT);
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
    admin = Nats.connect(NatsFixture.url(NatsFixture.PORT));
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (stream != null) {
      NatsStreams.delete(admin, stream);
    }
    if (admin != null) {
      admin.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private static long count(String sql) throws Exception {
    try (java.sql.Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aRepublishAfterKillNineBetweenAckAndMarkIsDroppedByJetStreamAndHasNoSecondEffect() throws Exception {
    String name = "rc" + UUID.randomUUID().toString().substring(0, 8);
    stream = "TB_" + name.toUpperCase();
    String prefix = "tb." + name;
    NatsStreams.ensure(admin, stream, prefix + ".>");
    Outbox outbox = Outbox.builder(store).build();
    List<String> ids = new ArrayList<>();
    try (java.sql.Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < EVENTS; i++) {
        ids.add(outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "o-" + i)
            .payload("{\"n\":" + i + "}").build()).toString());
      }
      c.commit();
    }

    Path dir = Files.createDirectories(Path.of("target", "relay-crash").toAbsolutePath());
    Path log = dir.resolve("relay.log");
    Files.deleteIfExists(log);
    Process relayJvm = ChildProcess.start(dir, log, List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
        NatsRelayMain.class.getName(), List.of(db.jdbcUrl(), db.user(), db.password(),
            NatsFixture.url(NatsFixture.PORT), prefix, Long.toString(LEASE_TTL.toMillis())));
    try {
      await("every publish acked in the doomed relay").atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> {
            assertThat(relayJvm.isAlive()).as("relay JVM alive; log:\n%s", ChildProcess.tail(log, 30)).isTrue();
            return acked(log).size() == EVENTS;
          });
    } finally {
      relayJvm.destroyForcibly(); // SIGKILL: no shutdown hook, no mark, no lease release
      assertThat(relayJvm.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(acked(log)).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'"))
        .as("acked by JetStream, never marked").isEqualTo(EVENTS);
    assertThat(admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(EVENTS);

    long started = System.nanoTime();
    try (NatsPublisher nats = NatsPublisher.builder(NatsFixture.url(NatsFixture.PORT))
            .subjectRouter(m -> prefix + "." + m.type()).build();
        Relay successor = Relay.builder(store, nats).nodeId("successor").leaseTtl(LEASE_TTL)
            .pollInterval(Duration.ofMillis(100)).build()) {
      successor.start();
      await("taken over and drained").atMost(Duration.ofSeconds(60))
          .until(() -> count("SELECT count(*) FROM twinbox_outbox") == 0);
      System.out.printf("NATS relay crash: %d republished after %d ms, %d dropped by JetStream as duplicates%n",
          nats.stats().acked(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), nats.stats().duplicates());
      assertThat(nats.stats().duplicates()).as("republishes JetStream dropped").isEqualTo(EVENTS);
      assertThat(successor.stats().published()).isEqualTo(EVENTS);
    }
    assertThat(admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount())
        .as("each event stored once").isEqualTo(EVENTS);

    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "payments").build();
    try (InboxConsumer consumer = NatsInboxConsumer.builder(admin, stream, "payments")
        .inbox(inbox, db.dataSource()).handler((c, m) -> {
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO effect (message_id) VALUES (?)")) {
            ps.setString(1, m.id());
            ps.executeUpdate();
          }
        }).build()) {
      try (java.sql.Connection c = db.dataSource().getConnection()) {
        c.createStatement().execute("CREATE TABLE effect (message_id text NOT NULL)");
      }
      consumer.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> consumer.stats().processed() >= EVENTS);
      Thread.sleep(500);
      assertThat(consumer.stats().duplicates()).as("duplicates that reached the consumer").isZero();
    }
    assertThat(count("SELECT count(*) FROM effect")).isEqualTo(EVENTS);
    assertThat(count("SELECT count(DISTINCT message_id) FROM effect")).isEqualTo(EVENTS);
  }

  private static Set<String> acked(Path log) throws Exception {
    if (!Files.exists(log)) {
      return Set.of();
    }
    return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
        .filter(l -> l.startsWith(NatsRelayMain.ACKED + " "))
        .map(l -> l.substring(NatsRelayMain.ACKED.length() + 1).trim()).collect(Collectors.toSet());
  }
}
