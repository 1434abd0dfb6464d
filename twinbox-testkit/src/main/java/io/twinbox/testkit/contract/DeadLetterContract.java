package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static io.twinbox.testkit.contract.Sql.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxAdminStore;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.contract.DeadLetterFixture.SdkEvent;
import java.sql.Connection;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Dead letters on a real broker (issue 17, acceptance 1 and 3), through a real relay on PostgreSQL:
 * a poison event the broker refuses reaches the dead-letter destination with its original id, type,
 * subject and payload and the failure extensions, read by the CloudEvents SDK alone, while its
 * aggregate stays held until {@code skip}; and a dead-letter path cut for 15 s holds the main flow
 * back in nothing, and every dead letter arrives afterwards. A transport runs it with a short
 * subclass supplying a {@link DeadLetterFixture}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DeadLetterContract {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private DeadLetterFixture fixture;
  private DataSource ds;
  private Outbox outbox;

  protected abstract DeadLetterFixture createFixture();

  @BeforeAll
  final void setUp() {
    fixture = createFixture();
    ds = fixture.dataSource();
    outbox = Outbox.builder(fixture.store()).build();
  }

  @AfterAll
  final void tearDown() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private UUID write(String aggregateId, String payload) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      UUID id = outbox.write(c, OutboxEvent.builder("OrderPlaced", 1).aggregate("Order", aggregateId)
          .payload(payload).correlationId("corr-" + aggregateId).build());
      c.commit();
      return id;
    }
  }

  private String status(UUID id) throws Exception {
    List<String> s = rows(ds, "SELECT status FROM twinbox_outbox WHERE id = ?", id);
    return s.isEmpty() ? "gone" : s.get(0);
  }

  /** Rows of this test's aggregates (their ids end with {@code -dest}) that meet {@code condition}. */
  private long rowsOf(String dest, String condition) throws Exception {
    return count(ds, "SELECT count(*) FROM twinbox_outbox WHERE aggregate_id LIKE ? AND " + condition, "%-" + dest);
  }

  private Relay.Builder relay(Transport t) {
    return Relay.builder(fixture.store(), t).source(TransportContract.SOURCE).leaseTtl(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50)).outageBackoffMax(Duration.ofSeconds(1))
        .publishTimeout(Duration.ofSeconds(10)).completionMode(CompletionMode.MARK);
  }

  @Test
  void aPoisonEventReachesTheDeadLetterDestinationWithItsIdAndTheFailureExtensionsAndItsAggregateStaysHeld()
      throws Exception {
    String dest = fixture.create("dl1" + UUID.randomUUID().toString().substring(0, 6));
    UUID poison = write("a-" + dest, "{\"poison\":true}");
    UUID behind = write("a-" + dest, "{\"n\":2}");
    UUID other = write("b-" + dest, "{\"n\":1}");
    try (Transport t = fixture.publisher(dest); Relay r = relay(t).deadLetters(true).build()) {
      r.start();
      List<SdkEvent> letters = fixture.deadLetters(dest, 1, WAIT);
      assertThat(letters).hasSize(1);
      SdkEvent e = letters.get(0);
      assertThat(e.id()).isEqualTo(poison.toString());
      assertThat(e.type()).isEqualTo("OrderPlaced");
      assertThat(e.source()).isEqualTo(TransportContract.SOURCE);
      assertThat(e.subject()).isEqualTo("a-" + dest);
      assertThat(e.data().replace(" ", "")).isEqualTo("{\"poison\":true}");
      assertThat(e.extensions()).containsEntry("aggregatetype", "Order").containsEntry("sequence", "1")
          .containsEntry("correlationid", "corr-a-" + dest).containsEntry("dlqattempts", "1");
      assertThat(e.extensions().get("dlqreason")).contains("rejected by the broker");
      OffsetDateTime first = OffsetDateTime.parse(e.extensions().get("dlqfirstfailure"));
      OffsetDateTime last = OffsetDateTime.parse(e.extensions().get("dlqlastfailure"));
      assertThat(first).isEqualTo(last);

      await().atMost(WAIT).until(() -> fixture.delivered(dest) == 1);
      assertThat(status(poison)).isEqualTo("FAILED");
      assertThat(status(other)).isEqualTo("PUBLISHED");
      Thread.sleep(1_500); // held: the later event of the poisoned aggregate is not published
      assertThat(status(behind)).isEqualTo("PENDING");
      assertThat(fixture.delivered(dest)).isEqualTo(1);
      assertThat(rowsOf(dest, "dead_letter = 'SENT'")).isEqualTo(1);

      assertThat(((OutboxAdminStore) fixture.store()).skip(EventSelector.id(poison))).isEqualTo(1);
      await().atMost(WAIT).until(() -> fixture.delivered(dest) == 2);
      assertThat(status(behind)).isEqualTo("PUBLISHED");
      assertThat(fixture.deadLetters(dest, 2, Duration.ofSeconds(2))).as("sent once").hasSize(1);
    }
  }

  @Test
  void aDeadLetterOutageOf15SecondsHoldsTheMainFlowBackInNothingAndLosesNothing() throws Exception {
    String dest = fixture.create("dl3" + UUID.randomUUID().toString().substring(0, 6));
    DeadLetterTransport cut = fixture.deadLettersThroughProxy(dest);
    Assumptions.assumeTrue(cut != null, fixture.name() + " has no proxy in front of its dead-letter path");
    List<UUID> poisoned = new ArrayList<>();
    try (Transport t = fixture.publisher(dest); Relay r = relay(t).deadLetterTransport(cut).build()) {
      fixture.cutDeadLetters();
      long cutAt = System.nanoTime();
      try {
        r.start();
        for (int i = 0; i < 3; i++) {
          poisoned.add(write("p" + i + "-" + dest, "{\"poison\":" + i + "}"));
        }
        for (int i = 0; i < 20; i++) {
          write("ok" + i + "-" + dest, "{\"n\":" + i + "}");
        }
        await().atMost(Duration.ofSeconds(12)).until(() -> fixture.delivered(dest) == 20);
        await().atMost(Duration.ofSeconds(5)).until(() -> rowsOf(dest,
            "status = 'FAILED' AND dead_letter = 'PENDING'") == 3);
        for (int i = 20; i < 40; i++) { // still cut: the main flow goes on
          write("ok" + i + "-" + dest, "{\"n\":" + i + "}");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.delivered(dest) == 40);
        long left = Duration.ofSeconds(15).toNanos() - (System.nanoTime() - cutAt);
        if (left > 0) {
          Thread.sleep(left / 1_000_000);
        }
        assertThat(rowsOf(dest, "dead_letter = 'PENDING'")).isEqualTo(3);
      } finally {
        fixture.restoreDeadLetters();
      }
      List<SdkEvent> letters = fixture.deadLetters(dest, 3, WAIT);
      assertThat(letters).extracting(SdkEvent::id)
          .containsExactlyInAnyOrderElementsOf(poisoned.stream().map(UUID::toString).toList());
      await().atMost(WAIT).until(() -> rowsOf(dest, "dead_letter = 'SENT'") == 3);
      assertThat(fixture.delivered(dest)).isEqualTo(40);
    }
  }
}
