package io.twinbox.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RetryPolicy;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.testing.RecordingTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Dead letters on a store (in memory, PostgreSQL, MariaDB), with recording transports in place of
 * brokers: a FAILED event gets a pending dead letter in the same update, the relay's dead-letter
 * loop sends it once with the failure's reason, attempts and times, a dead-letter outage holds the
 * main flow back in nothing and loses nothing, the aggregate stays held until {@code retry}, and the
 * store's claim of dead letters is fenced by the lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DeadLetterContract {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private StoreFixture fixture;
  private DataSource ds;
  private OutboxStore store;
  private Outbox outbox;

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.store();
    outbox = Outbox.builder(store).build();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset() throws Exception {
    fixture.reset();
  }

  private Relay.Builder relay(RecordingTransport t) {
    return Relay.builder(store, t).leaseTtl(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
        .outageBackoffMax(Duration.ofMillis(500))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(50), Duration.ofMillis(100)).build());
  }

  private UUID write(String aggregateId, String payload) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", aggregateId)
          .payload(payload).build());
      c.commit();
      return id;
    }
  }

  private List<String> states(String aggregateId) throws Exception {
    return fixture.outboxRows().stream().filter(r -> aggregateId.equals(r.aggregateId()))
        .sorted(java.util.Comparator.comparingLong(StoreFixture.OutboxRow::sequence))
        .map(StoreFixture.OutboxRow::status).toList();
  }

  @Test
  void aRejectedEventIsDeadLetteredOnceWithItsIdAndReasonAndItsAggregateStaysHeldUntilRetry() throws Exception {
    AtomicBoolean poison = new AtomicBoolean(true);
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> poison.get() && m.payload().contains("poison"), PublishOutcome.rejected("too large"));
    RecordingDeadLetters dlq = new RecordingDeadLetters();
    UUID bad = write("a-1", "{\"poison\":true}");
    UUID behind = write("a-1", "{\"n\":2}");
    UUID other = write("b-1", "{\"n\":1}");
    try (Relay r = relay(t).completionMode(CompletionMode.MARK).deadLetterTransport(dlq).build()) {
      r.start();
      await().atMost(WAIT).until(() -> dlq.acked().size() == 1 && t.acked().size() == 1);
      DeadLetter d = dlq.acked().get(0);
      assertThat(d.message().id()).isEqualTo(bad);
      assertThat(d.message().payload().replace(" ", "")).isEqualTo("{\"poison\":true}");
      assertThat(d.message().source()).isEqualTo("/twinbox");
      assertThat(d.reason()).contains("rejected by the broker").contains("too large");
      assertThat(d.attempts()).isEqualTo(1);
      assertThat(d.firstFailedAt()).isNotNull();
      assertThat(d.lastFailedAt()).isNotNull().isEqualTo(d.firstFailedAt());
      assertThat(t.acked().get(0).id()).isEqualTo(other);
      assertThat(states("a-1")).containsExactly("FAILED", "PENDING");

      Thread.sleep(1_500); // the loop keeps polling: a sent dead letter is never sent again
      assertThat(dlq.acked()).hasSize(1);
      assertThat(t.acked()).extracting(m -> m.id()).containsExactly(other);

      poison.set(false);
      assertThat(fixture.adminStore().retry(EventSelector.id(bad))).isEqualTo(1);
      await().atMost(WAIT).until(() -> t.acked().size() == 3);
      assertThat(t.acked()).extracting(m -> m.id()).containsExactly(other, bad, behind);
      assertThat(dlq.acked()).hasSize(1);
    }
  }

  @Test
  void exhaustedRetriesCarryTheAttemptsAndTheFirstAndLastFailureTimes() throws Exception {
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.retry("broker said no"));
    RecordingDeadLetters dlq = new RecordingDeadLetters();
    UUID bad = write("a-2", "{\"poison\":1}");
    try (Relay r = relay(t).deadLetterTransport(dlq).build()) {
      r.start();
      await().atMost(WAIT).until(() -> dlq.acked().size() == 1);
    }
    DeadLetter d = dlq.acked().get(0);
    assertThat(d.message().id()).isEqualTo(bad);
    assertThat(d.attempts()).isEqualTo(3);
    assertThat(d.reason()).isEqualTo("broker said no");
    assertThat(d.firstFailedAt()).isBefore(d.lastFailedAt());
    assertThat(states("a-2")).containsExactly("FAILED");
  }

  @Test
  void aDeadLetterOutageHoldsTheMainFlowBackInNothingAndLosesNothing() throws Exception {
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.rejected("unroutable"));
    RecordingDeadLetters dlq = new RecordingDeadLetters().down(true);
    List<UUID> poisoned = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      poisoned.add(write("p-" + i, "{\"poison\":" + i + "}"));
    }
    try (Relay r = relay(t).deadLetterTransport(dlq).build()) {
      r.start();
      await().atMost(WAIT).until(() -> dlq.refused() >= 3);
      for (int i = 0; i < 50; i++) {
        write("ok-" + i, "{\"n\":" + i + "}");
      }
      await().atMost(WAIT).until(() -> t.acked().size() == 50);
      assertThat(dlq.acked()).isEmpty();
      dlq.down(false);
      await().atMost(WAIT).until(() -> dlq.acked().size() == 3);
      Thread.sleep(1_000);
    }
    assertThat(dlq.acked()).extracting(d -> d.message().id()).containsExactlyInAnyOrderElementsOf(poisoned);
  }

  @Test
  void withoutDeadLettersAFailedEventHasNoneToSend() throws Exception {
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.rejected("nope"));
    write("a-3", "{\"poison\":1}");
    try (Relay r = relay(t).build()) {
      r.start();
      await().atMost(WAIT).until(() -> states("a-3").equals(List.of("FAILED")));
    }
    List<PartitionLease> all = store.acquire("inspector", store.partitionCount(), Duration.ofSeconds(5));
    assertThat(store.claimDeadLetters("inspector", all, 10)).isEmpty();
  }

  @Test
  void theClaimOfDeadLettersIsFencedByTheLeaseAndSentMarksOnce() throws Exception {
    write("a-4", "{\"n\":1}");
    write("a-5", "{\"n\":1}");
    List<PartitionLease> mine = store.acquire("n1", store.partitionCount(), Duration.ofSeconds(30));
    List<ClaimedRow> rows = store.claim("n1", mine, 10);
    assertThat(rows).hasSize(2);
    store.complete("n1", mine, List.of(), List.of(
        new FailedPublish(rows.get(0).position(), true, Duration.ZERO, "dead, with a dead letter", true),
        new FailedPublish(rows.get(1).position(), true, Duration.ZERO, "dead, without")), CompletionMode.DELETE);

    assertThat(store.claimDeadLetters("n2", mine, 10)).as("another node's claim").isEmpty();
    List<DeadLetter> letters = store.claimDeadLetters("n1", mine, 10);
    assertThat(letters).extracting(DeadLetter::position).containsExactly(rows.get(0).position());
    assertThat(letters.get(0).reason()).isEqualTo("dead, with a dead letter");
    assertThat(letters.get(0).attempts()).isEqualTo(1);
    assertThat(letters.get(0).firstFailedAt()).isNotNull();
    assertThat(store.claimDeadLetters("n1", mine, 10)).as("claiming twice changes nothing").hasSize(1);

    assertThat(store.deadLettersSent(Set.of(rows.get(0).position(), rows.get(1).position()))).isEqualTo(1);
    assertThat(store.deadLettersSent(Set.of(rows.get(0).position()))).isZero();
    assertThat(store.claimDeadLetters("n1", mine, 10)).isEmpty();
    assertThat(states("a-4")).containsExactly("FAILED");
    store.release("n1", mine);
  }

  @Test
  void theTransportsOwnDeadLettersAreUsedByDefault() throws Exception {
    RecordingTransport t = RecordingTransport.acking()
        .failWhen(m -> m.payload().contains("poison"), PublishOutcome.rejected("nope"));
    UUID bad = write("a-6", "{\"poison\":1}");
    try (Relay r = relay(t).deadLetters(true).build()) {
      r.start();
      await().atMost(WAIT).until(() -> t.deadLettered().size() == 1);
    }
    assertThat(t.deadLettered().get(0).message().id()).isEqualTo(bad);
  }

  @Test
  void deadLettersNeedADeadLetterDestination() {
    io.twinbox.spi.Transport none = new io.twinbox.spi.Transport() {
      @Override
      public String name() {
        return "without dead letters";
      }

      @Override
      public java.util.concurrent.CompletableFuture<PublishOutcome> send(io.twinbox.spi.OutboxMessage message) {
        return java.util.concurrent.CompletableFuture.completedFuture(PublishOutcome.acked());
      }

      @Override
      public void close() {}
    };
    assertThatThrownBy(() -> Relay.builder(store, none).deadLetters(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadLetters")
        .hasMessageContaining("deadLetterTransport");
  }
}
