package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static io.twinbox.testkit.contract.Sql.exec;
import static io.twinbox.testkit.contract.Sql.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.contract.TransportFixture.MissingDestination;
import io.twinbox.testkit.contract.TransportFixture.Rejection;
import io.twinbox.testkit.contract.TransportFixture.RunningConsumer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The guarantees every transport must give, proven on its real broker with a PostgreSQL inbox:
 * every published message has exactly one effect and carries its CloudEvents attributes; a
 * republish (ambiguous ack) and a redelivery after a consumer crash before or after the commit have
 * no second effect; a poison message is parked after its attempts while others flow; first effects
 * keep per-aggregate order; permanent rejections fail at once; a destination that does not exist
 * fails only its own events, at once, through a real relay; an outage is {@code UNAVAILABLE} and
 * heals without loss. A transport runs it with a short subclass supplying a
 * {@link TransportFixture}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TransportContract {
  /** The CloudEvents {@code source} the test messages carry. */
  public static final String SOURCE = "/orders-service";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final RetryPolicy RETRY = RetryPolicy.builder().maxAttempts(3)
      .backoff(Duration.ofMillis(20), Duration.ofMillis(100)).build();

  private TransportFixture fixture;
  private DataSource ds;
  private final List<AutoCloseable> open = new ArrayList<>();
  private String destination;

  protected abstract TransportFixture createFixture();

  /** The fixture, for a subclass's own broker-specific tests. */
  protected final TransportFixture fixture() {
    return fixture;
  }

  @BeforeAll
  final void setUpFixture() throws Exception {
    fixture = createFixture();
    ds = fixture.dataSource();
    exec(ds, """
        CREATE TABLE IF NOT EXISTS twinbox_test_effect (
          n bigserial PRIMARY KEY, consumer text NOT NULL, message_id text NOT NULL, aggregate_type text,
          aggregate_id text, sequence bigint, type text, version int, source text, correlation_id text,
          tenant text, occurred_at timestamptz, payload text)""");
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset(TestInfo test) throws Exception {
    Sql.reset(ds);
    exec(ds, "DELETE FROM twinbox_test_effect");
    String method = test.getTestMethod().map(m -> m.getName()).orElse("test");
    destination = fixture.createDestination(shortName(method));
  }

  @AfterEach
  final void closeAll() {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // Best effort: the next test uses fresh destinations.
      }
    }
    open.clear();
  }

  private static String shortName(String method) {
    String letters = method.replaceAll("[^A-Za-z]", "").toLowerCase(Locale.ROOT);
    return letters.substring(0, Math.min(12, letters.length())) + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** An ordered test message with every optional field set. */
  public static OutboxMessage message(String aggregateId, long sequence, String payload) {
    Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    return new OutboxMessage(sequence, UUID.randomUUID(), "Order", aggregateId, sequence, 0, "OrderPlaced", 2, payload,
        Map.of("tenant", "acme"), "corr-" + aggregateId, null, null, at, at, 0, SOURCE);
  }

  private static List<OutboxMessage> messages(int aggregates, int perAggregate) {
    List<OutboxMessage> out = new ArrayList<>();
    for (int s = 1; s <= perAggregate; s++) {
      for (int a = 0; a < aggregates; a++) {
        out.add(message("agg-" + a, s, "{\"amount\":" + s + "}"));
      }
    }
    return out;
  }

  private Transport publisher() {
    Transport t = fixture.publisher(destination);
    open.add(t);
    return t;
  }

  private RunningConsumer consumer(String name, InboxHandler handler) {
    Inbox inbox = Inbox.builder(fixture.inboxStore(), name).build();
    RunningConsumer c = fixture.startConsumer(destination, inbox, handler, RETRY);
    open.add(c);
    return c;
  }

  /** Publishes wave by wave, as the relay does: sequence n of every aggregate once n−1 is acked. */
  private static void publish(Transport t, List<OutboxMessage> ms) throws Exception {
    Map<Long, List<OutboxMessage>> waves = new TreeMap<>();
    for (OutboxMessage m : ms) {
      waves.computeIfAbsent(m.sequence(), k -> new ArrayList<>()).add(m);
    }
    for (List<OutboxMessage> wave : waves.values()) {
      List<CompletableFuture<PublishOutcome>> acks = new ArrayList<>();
      for (OutboxMessage m : wave) {
        acks.add(t.send(m));
      }
      t.flush();
      for (CompletableFuture<PublishOutcome> a : acks) {
        assertThat(a.get(60, TimeUnit.SECONDS)).isEqualTo(PublishOutcome.acked());
      }
    }
  }

  /** The business effect: a row per handled message, written in the inbox's transaction. */
  private static InboxHandler effect(String consumer) {
    return (c, m) -> {
      try (PreparedStatement ps = c.prepareStatement("""
          INSERT INTO twinbox_test_effect (consumer, message_id, aggregate_type, aggregate_id, sequence, type, version,
            source, correlation_id, tenant, occurred_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")) {
        ps.setString(1, consumer);
        ps.setString(2, m.id());
        ps.setString(3, m.aggregateType());
        ps.setString(4, m.aggregateId());
        ps.setLong(5, m.sequence());
        ps.setString(6, m.type());
        ps.setInt(7, m.version());
        ps.setString(8, m.source());
        ps.setString(9, m.correlationId());
        ps.setString(10, m.headers().get("tenant"));
        ps.setObject(11, m.time() == null ? null : Timestamp.from(m.time()));
        ps.setString(12, m.payload());
        ps.executeUpdate();
      }
    };
  }

  private long effects() throws Exception {
    return count(ds, "SELECT count(*) FROM twinbox_test_effect");
  }

  /** Every message has exactly one effect, and no other effect exists. */
  private void assertOneEffectEach(List<OutboxMessage> ms) throws Exception {
    assertThat(rows(ds, "SELECT message_id FROM twinbox_test_effect GROUP BY message_id HAVING count(*) > 1"))
        .as("messages with more than one effect").isEmpty();
    assertThat(rows(ds, "SELECT message_id FROM twinbox_test_effect"))
        .containsExactlyInAnyOrderElementsOf(ms.stream().map(m -> m.id().toString()).toList());
  }

  // ---------------------------------------------------------------------------------------------
  // The contract

  @Test
  final void everyPublishedMessageHasOneEffectAndCarriesItsCloudEventsAttributes() throws Exception {
    List<OutboxMessage> ms = messages(5, 8);
    publish(publisher(), ms);
    RunningConsumer c = consumer("c-all", effect("c-all"));
    await().atMost(WAIT).until(() -> effects() >= ms.size());
    assertOneEffectEach(ms);
    assertThat(c.parked()).isZero();
    OutboxMessage sample = ms.get(7);
    assertThat(rows(ds, "SELECT aggregate_type, aggregate_id, sequence, type, version, source, correlation_id, tenant,"
        + " payload FROM twinbox_test_effect WHERE message_id = ?", sample.id().toString()))
        .containsExactly(String.join("|", "Order", sample.aggregateId(), Long.toString(sample.sequence()),
            "OrderPlaced", "2", SOURCE, sample.correlationId(), "acme", sample.payload()));
    assertThat(count(ds, "SELECT count(*) FROM twinbox_test_effect WHERE message_id = ? AND occurred_at = ?",
        sample.id().toString(), Timestamp.from(sample.occurredAt()))).as("time carried to the millisecond").isEqualTo(1);
  }

  @Test
  final void aRepublishedMessageHasExactlyOneEffect() throws Exception {
    Transport t = publisher();
    OutboxMessage twice = message("dup-1", 1, "{\"amount\":7}");
    OutboxMessage other = message("dup-2", 1, "{\"amount\":8}");
    publish(t, List.of(twice, other));
    publish(t, List.of(twice)); // the relay's republish after an ambiguous ack or a crash before the mark
    OutboxMessage last = message("dup-3", 1, "{\"amount\":9}");
    publish(t, List.of(last));
    RunningConsumer c = consumer("c-dup", effect("c-dup"));
    long expectedDuplicates = fixture.deduplicates() ? 0 : 1;
    await().atMost(WAIT).until(() -> c.processed() >= 3 && c.duplicates() >= expectedDuplicates);
    Thread.sleep(1_000); // a duplicate the broker should have dropped would arrive now
    assertOneEffectEach(List.of(twice, other, last));
    assertThat(c.duplicates()).as("duplicate deliveries on %s", fixture.name()).isEqualTo(expectedDuplicates);
  }

  @Test
  final void aConsumerCrashLosesNothingAndAppliesNothingTwice() throws Exception {
    List<OutboxMessage> ms = messages(8, 25);
    publish(publisher(), ms);
    InboxHandler slow = (conn, m) -> {
      effect("c-crash").handle(conn, m);
      Thread.sleep(10); // 200 messages take two seconds: the crash lands mid-run
    };
    RunningConsumer first = consumer("c-crash", slow);
    await().atMost(WAIT).until(() -> effects() >= 20);
    first.crash();
    long before = effects();
    assertThat(before).as("the crash came mid-run").isLessThan(ms.size());
    RunningConsumer second = consumer("c-crash", effect("c-crash"));
    await().atMost(WAIT).until(() -> effects() >= ms.size()
        && rows(ds, "SELECT DISTINCT message_id FROM twinbox_test_effect").size() == ms.size());
    Thread.sleep(500);
    assertOneEffectEach(ms);
    assertThat(second.parked()).isZero();
  }

  @Test
  final void aCrashAfterCommitBeforeAckIsAbsorbedAsADuplicate() throws Exception {
    List<OutboxMessage> ms = messages(5, 1);
    publish(publisher(), ms);
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "c-late").build();
    // The state a consumer leaves when it dies between commit and ack: effect and inbox record
    // committed, the broker's message unacknowledged.
    try (Connection conn = ds.getConnection()) {
      conn.setAutoCommit(false);
      List<InboxMessage> applied = new ArrayList<>();
      for (OutboxMessage m : ms.subList(0, 3)) {
        applied.add(new InboxMessage(m.id().toString(), m.type(), m.version(), SOURCE, m.aggregateType(),
            m.aggregateId(), m.sequence(), m.payload(), m.headers(), m.correlationId(), null, null, m.occurredAt(),
            "before the crash"));
      }
      inbox.processAll(conn, applied, effect("c-late"));
      conn.commit();
    }
    RunningConsumer c = consumer("c-late", effect("c-late"));
    await().atMost(WAIT).until(() -> c.processed() + c.duplicates() >= ms.size());
    assertOneEffectEach(ms);
    assertThat(c.duplicates()).isEqualTo(3);
    assertThat(c.processed()).isEqualTo(2);
  }

  @Test
  final void aPoisonMessageIsParkedAfterItsAttemptsAndTheOthersFlow() throws Exception {
    List<OutboxMessage> good = messages(4, 3);
    OutboxMessage poison = message("poison", 1, "{\"poison\":true}");
    Transport t = publisher();
    publish(t, good.subList(0, 6));
    publish(t, List.of(poison));
    publish(t, good.subList(6, good.size()));
    AtomicInteger poisonRuns = new AtomicInteger();
    InboxHandler h = (conn, m) -> {
      if (m.payload().contains("poison")) {
        poisonRuns.incrementAndGet();
        throw new IllegalStateException("this handler always fails on poison");
      }
      effect("c-poison").handle(conn, m);
    };
    RunningConsumer c = consumer("c-poison", h);
    await().atMost(WAIT).until(() -> c.parked() == 1 && effects() >= good.size());
    assertOneEffectEach(good);
    // One more run when the poison first failed inside a batch: that failure only splits the batch.
    assertThat(poisonRuns.get()).isBetween(RETRY.maxAttempts(), RETRY.maxAttempts() + 1);
    assertThat(rows(ds, "SELECT message_id, reason FROM twinbox_inbox_parked WHERE consumer = 'c-poison'"))
        .singleElement().asString().startsWith(poison.id() + "|handler failed 3 times").contains("always fails");
  }

  @Test
  final void firstEffectsKeepEachAggregatesOrder() throws Exception {
    List<OutboxMessage> ms = messages(8, 12);
    publish(publisher(), ms);
    consumer("c-order", effect("c-order"));
    await().atMost(WAIT).until(() -> effects() >= ms.size());
    Map<String, Long> last = new HashMap<>();
    for (String row : rows(ds, "SELECT aggregate_id, sequence FROM twinbox_test_effect ORDER BY n")) {
      String[] f = row.split("\\|");
      long seq = Long.parseLong(f[1]);
      assertThat(seq).as("effect order of %s", f[0]).isEqualTo(last.getOrDefault(f[0], 0L) + 1);
      last.put(f[0], seq);
    }
    assertOneEffectEach(ms);
  }

  @Test
  final void permanentRejectionsFailAtOnceWithTheReason() throws Exception {
    List<Rejection> cases = fixture.rejections(destination);
    assertThat(cases).isNotEmpty();
    for (Rejection r : cases) {
      open.add(r.publisher());
      PublishOutcome o = r.publisher().send(r.message()).get(60, TimeUnit.SECONDS);
      assertThat(o.kind()).as("outcome of %s", r.reason()).isEqualTo(PublishOutcome.Kind.REJECTED);
      assertThat(o.reason().toLowerCase(Locale.ROOT)).contains(r.reason().toLowerCase(Locale.ROOT));
    }
  }

  /**
   * FAULTS.md H4: 1 % of the events go to a destination that does not exist. Those fail at once
   * (FAILED after one attempt, the reason naming the destination); the others of the same batch
   * are all published in that batch, and no outage is counted — an outage would stop the whole
   * batch and pause the relay, i.e. throttle every aggregate of the worker.
   */
  @Test
  final void aMissingDestinationFailsOnlyItsOwnEventsAndTheRestOfTheBatchIsPublished() throws Exception {
    MissingDestination missing = fixture.missingDestination(destination, "Lost");
    open.add(missing.publisher());
    Outbox outbox = Outbox.builder(fixture.outboxStore()).build();
    int goodAggregates = 66;
    int perAggregate = 6; // 396 good events in six waves, 4 lost ones (1 %) in the first
    int lost = 4;
    try (Relay relay = Relay.builder(fixture.outboxStore(), missing.publisher()).nodeId("h4-" + destination)
        .workers(1).batchSize(1_000).pollInterval(Duration.ofMillis(50)).retryPolicy(RETRY).build()) {
      relay.start();
      await().atMost(WAIT).until(() -> relay.partitions().size() == fixture.outboxStore().partitionCount());
      // One transaction: the relay's next claim sees every event at once, so without the missing
      // destination the whole set is one batch.
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        for (int s = 1; s <= perAggregate; s++) {
          for (int a = 0; a < goodAggregates; a++) {
            outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", "h4-" + a)
                .payload("{\"n\":" + s + "}").build());
          }
          if (s == 1) {
            for (int l = 0; l < lost; l++) {
              outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Lost", "lost-" + l)
                  .payload("{\"lost\":" + l + "}").build());
            }
          }
        }
        c.commit();
      }
      await().atMost(WAIT).until(() -> count(ds, "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'") == 0);
      RelayStats stats = relay.stats();
      assertThat(stats.published()).as("good events published").isEqualTo((long) goodAggregates * perAggregate);
      assertThat(stats.outages()).as("outages counted on %s", fixture.name()).isZero();
      assertThat(stats.retried()).as("attempts used by the lost events").isZero();
      assertThat(stats.dead()).isEqualTo(lost);
      assertThat(stats.batches()).as("batches: the lost events must not split the batch").isEqualTo(1);
    }
    List<String> failed = rows(ds, "SELECT aggregate_type, status, attempts, last_error FROM twinbox_outbox");
    assertThat(failed).hasSize(lost).allSatisfy(row -> assertThat(row)
        .startsWith("Lost|FAILED|1|rejected by the broker").contains(missing.name()));
  }

  @Test
  final void anOutageIsUnavailableAndHealsWithoutLossOrSecondEffects() throws Exception {
    Transport t = publisher();
    publish(t, List.of(message("out-0", 1, "{\"amount\":1}")));
    if (!fixture.interruptBroker()) {
      String reason = fixture.name() + "'s fixture does not interrupt its broker (see the fixture's documentation)";
      System.err.println("SKIPPED: " + reason);
      Assumptions.abort(reason);
    }
    List<OutboxMessage> ms = List.of(message("out-1", 1, "{\"amount\":1}"), message("out-2", 1, "{\"amount\":2}"));
    try {
      List<CompletableFuture<PublishOutcome>> outcomes = ms.stream().map(t::send).toList();
      for (CompletableFuture<PublishOutcome> f : outcomes) {
        PublishOutcome o = f.get(90, TimeUnit.SECONDS);
        assertThat(o.kind()).as("during the outage: %s", o).isEqualTo(PublishOutcome.Kind.UNAVAILABLE);
      }
    } finally {
      fixture.restoreBroker();
    }
    // As the relay does: republish until acknowledged (the first attempt may have been stored).
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<OutboxMessage> pending = new ArrayList<>(ms);
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      List<OutboxMessage> still = new ArrayList<>();
      for (OutboxMessage m : pending) {
        if (t.send(m).get(90, TimeUnit.SECONDS).kind() != PublishOutcome.Kind.ACKED) {
          still.add(m);
        }
      }
      pending = still;
      if (!pending.isEmpty()) {
        Thread.sleep(500);
      }
    }
    assertThat(pending).as("republished after the outage").isEmpty();
    consumer("c-outage", effect("c-outage"));
    await().atMost(WAIT).until(() -> effects() >= 3);
    Thread.sleep(500);
    assertThat(rows(ds, "SELECT message_id FROM twinbox_test_effect GROUP BY message_id HAVING count(*) > 1")).isEmpty();
    assertThat(effects()).isEqualTo(3);
  }

  /**
   * One wire model: whatever the broker, the consumer reads back exactly the attributes the
   * publisher wrote — every optional one set, the user's header, a non-ASCII payload — so Kafka,
   * RabbitMQ and NATS produce and read the same CloudEvents (core's {@code WireAttributes} and
   * {@code WireEvents}; each transport only binds them to its protocol). The inbox's listener hears
   * the commit's latencies (R18).
   */
  @Test
  final void theConsumerReadsBackEveryAttributeThePublisherWrote() throws Exception {
    Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    OutboxMessage sent = new OutboxMessage(1, UUID.randomUUID(), "Order", "agg-wire", 7, 0, "OrderPlaced", 3,
        "{\"note\":\"caf\u00e9 \u20ac \ud83d\ude00\"}", Map.of("tenant", "acme"), "corr-wire", "cause-wire",
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", at, at, 0, SOURCE);
    publish(publisher(), List.of(sent));
    List<InboxMessage> received = new CopyOnWriteArrayList<>();
    List<Duration[]> latencies = new CopyOnWriteArrayList<>();
    Inbox inbox = Inbox.builder(fixture.inboxStore(), "c-wire").listener(new InboxListener() {
      @Override
      public void committed(InboxMessage message, Duration sinceReceived, Duration sinceEvent) {
        latencies.add(new Duration[] {sinceReceived, sinceEvent});
      }
    }).build();
    RunningConsumer c = fixture.startConsumer(destination, inbox, (connection, m) -> received.add(m), RETRY);
    open.add(c);
    await().atMost(WAIT).until(() -> c.processed() >= 1 && !latencies.isEmpty());
    assertThat(received).hasSize(1);
    // R18: the consumer reports each commit's latency from receipt and from the event's time.
    assertThat(latencies).hasSize(1);
    assertThat(latencies.get(0)[0]).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(WAIT);
    assertThat(latencies.get(0)[1]).as("the event's time is before its receipt").isGreaterThanOrEqualTo(
        latencies.get(0)[0]);
    assertThat(received.get(0)).usingRecursiveComparison().ignoringFields("origin")
        .isEqualTo(new InboxMessage(sent.id().toString(), "OrderPlaced", 3, SOURCE, "Order", "agg-wire", 7,
            sent.payload(), Map.of("tenant", "acme"), "corr-wire", "cause-wire", sent.traceparent(), at, null));
  }
}
