package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.spi.WireEvents;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Core's {@link InboxConsumer} over a {@link MessageSource} of the test's own (no broker, a real
 * PostgreSQL inbox): the SPI's contract as a source author relies on it — settled only after the
 * commit, in order, parked items named; the rest given back when the consumer stops part-way.
 */
class OwnMessageSourceTest {
  static PostgresDatabase db;
  static JdbcStore store;

  @BeforeAll
  static void setUp() {
    db = PostgresDatabase.create();
    store = JdbcStore.builder(db.dataSource()).build();
    store.migrate();
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  static InboxMessage message(String id, String payload) {
    return new InboxMessage(id, "OrderPlaced", 1, "/orders", "Order", "o-1", 1, payload, Map.of(), null, null, null,
        Instant.now(), "test");
  }

  /** Hands out one batch, then nothing; records every settle and give-back. */
  static final class ListSource implements MessageSource {
    final List<ReceivedMessage> batch;
    final List<int[]> settled = new CopyOnWriteArrayList<>();
    final List<Integer> parked = new CopyOnWriteArrayList<>();
    final List<Integer> givenBack = new CopyOnWriteArrayList<>();
    final List<String> settledBeforeCommit = new CopyOnWriteArrayList<>();
    final Inbox inbox;
    boolean fetched;

    ListSource(Inbox inbox, List<ReceivedMessage> batch) {
      this.inbox = inbox;
      this.batch = batch;
    }

    @Override
    public String name() {
      return "list";
    }

    @Override
    public List<ReceivedMessage> fetch() throws InterruptedException {
      if (fetched) {
        Thread.sleep(20);
        return List.of();
      }
      fetched = true;
      return batch;
    }

    @Override
    public void settle(int from, int to, IntPredicate isParked) {
      settled.add(new int[] {from, to});
      List<String> ids = new ArrayList<>();
      for (int i = from; i < to; i++) {
        ids.add(batch.get(i).message().id());
        if (isParked.test(i)) {
          parked.add(i);
        }
      }
      try (Connection c = db.dataSource().getConnection()) {
        Set<String> stored = inbox.store().storedHashes(c, inbox.consumer(), ids).keySet();
        ids.stream().filter(id -> !stored.contains(id)).forEach(settledBeforeCommit::add);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void giveBack(int done) {
      givenBack.add(done);
    }

    @Override
    public long sessions() {
      return 1;
    }

    @Override
    public void close() {}
  }

  @Test
  void itemsAreSettledInOrderOnlyAfterTheirCommitAndParkedOnesAreNamed() {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "own-source").build();
    Instant now = Instant.now();
    List<ReceivedMessage> batch = List.of(
        new ReceivedMessage(message("m1", "{}"), null, false, now),
        new ReceivedMessage(message("m2", "{}"), null, false, now),
        new ReceivedMessage(WireEvents.unreadable("list:3", new byte[] {1, 2}, null, "test"), "not a CloudEvent", false,
            now),
        new ReceivedMessage(message("m4", "{\"poison\":true}"), null, false, now),
        new ReceivedMessage(message("m5", "{}"), null, true, now));
    ListSource source = new ListSource(inbox, batch);
    InboxHandler handler = (c, m) -> {
      if (m.payload().contains("poison")) {
        throw new UnprocessableMessageException("never valid");
      }
    };
    try (InboxConsumer consumer = InboxConsumer.builder(source).inbox(inbox, db.dataSource()).handler(handler)
        .batchSize(10).build()) {
      consumer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> !source.settled.isEmpty()
          && source.settled.get(source.settled.size() - 1)[1] == batch.size());
      InboxConsumer.Stats stats = consumer.stats();
      assertThat(stats.processed()).isEqualTo(3);
      assertThat(stats.parked()).isEqualTo(2);
      assertThat(stats.redelivered()).isEqualTo(1);
      assertThat(stats.sessions()).isEqualTo(1);
    }
    assertThat(source.settledBeforeCommit).as("ids settled before the inbox held them").isEmpty();
    int next = 0;
    for (int[] range : source.settled) {
      assertThat(range[0]).as("settled ranges follow each other").isEqualTo(next);
      assertThat(range[1]).isGreaterThan(range[0]);
      next = range[1];
    }
    assertThat(source.parked).containsExactly(2, 3);
    assertThat(source.givenBack).as("nothing left to give back").isEmpty();
  }

  @Test
  void whatIsNotReachedWhenTheConsumerStopsIsGivenBack() {
    Inbox inbox = Inbox.builder(JdbcInboxStore.of(store), "own-source-stop").build();
    Instant now = Instant.now();
    List<ReceivedMessage> batch = List.of(
        new ReceivedMessage(message("s1", "{}"), null, false, now),
        new ReceivedMessage(message("s2", "{}"), null, false, now),
        new ReceivedMessage(message("s3", "{\"fails\":true}"), null, false, now),
        new ReceivedMessage(message("s4", "{}"), null, false, now));
    ListSource source = new ListSource(inbox, batch);
    AtomicInteger failures = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.payload().contains("fails")) {
        failures.incrementAndGet();
        throw new IllegalStateException("fails until the consumer stops");
      }
    };
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(50).backoff(Duration.ofMillis(50), Duration.ofMillis(50))
        .build();
    try (InboxConsumer consumer = InboxConsumer.builder(source).inbox(inbox, db.dataSource()).handler(handler)
        .retryPolicy(retry).build()) {
      consumer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> failures.get() >= 2);
    }
    assertThat(source.settled).as("the two messages before the failing one").hasSize(1);
    assertThat(source.settled.get(0)).containsExactly(0, 2);
    assertThat(source.givenBack).containsExactly(2);
    assertThat(source.settledBeforeCommit).isEmpty();
  }
}
