package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The WAL relay on a partitioned outbox, on a private {@code wal_level=logical} cluster: its
 * publication is created with {@code publish_via_partition_root = true}, so inserts into any
 * partition stream as rows of {@code twinbox_outbox}; across partition boundaries nothing is lost
 * and each aggregate keeps its order.
 */
class PostgresPartitionedWalRelayTest {
  private static LogicalCluster pg;

  @BeforeAll
  static void cluster() {
    pg = LogicalCluster.start(Map.of("max_replication_slots", "3", "max_wal_senders", "4"));
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @ParameterizedTest
  @EnumSource(CompletionMode.class)
  void theWalRelayStreamsAPartitionedOutboxAcrossBoundaries(CompletionMode mode) throws Exception {
    String name = "wal_" + mode.name().toLowerCase(Locale.ROOT);
    DataSource ds = pg.database(name);
    JdbcStore store = JdbcStore.builder(ds).partitionedOutbox().build();
    store.migrate();
    PostgresPartitionedOutboxTest.shortPartitions(ds, store, 2);
    Sql.exec(ds, "ALTER TABLE twinbox_outbox_default ADD CONSTRAINT twinbox_test_no_row CHECK (false)");
    Outbox outbox = Outbox.builder(store).build();
    RecordingTransport t = RecordingTransport.acking();
    List<ExpectedEvent> committed = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    String slot = "twinbox_" + name;
    try (Relay relay = Relay.builder(store, t).mode(RelayMode.WAL).walSlot(slot).completionMode(mode)
        .leaseTtl(Duration.ofSeconds(5)).build()) {
      relay.start();
      long until = System.nanoTime() + Duration.ofSeconds(7).toNanos();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int writer = w;
        Thread th = new Thread(() -> {
          try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (int n = 0; System.nanoTime() < until; n++) {
              String aggregate = "w" + writer + "-" + (n % 4);
              UUID id = outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", aggregate)
                  .payload("{\"n\":" + n + "}").build());
              c.commit();
              committed.add(ExpectedEvent.ordered(id, "Order", aggregate, n / 4 + 1));
              Thread.sleep(10);
            }
          } catch (Throwable e) {
            failure.set(e);
          }
        });
        th.start();
        writers.add(th);
      }
      for (Thread th : writers) {
        th.join();
      }
      assertThat(failure.get()).as("a writer's failure").isNull();
      await().atMost(Duration.ofSeconds(60)).until(() -> t.acked().stream().map(OutboxMessage::id)
          .collect(Collectors.toSet()).size() >= committed.size());
      // Completions follow the acknowledgements: every row is marked or deleted while the relay runs.
      await().atMost(Duration.ofSeconds(30)).until(() -> Sql.rows(ds,
          "SELECT count(*) FROM twinbox_outbox WHERE status <> 'PUBLISHED'").equals(List.of("0")));
    }
    assertThat(Sql.rows(ds, "SELECT pubviaroot FROM pg_publication WHERE pubname = ?", slot)).containsExactly("t");
    assertThat(Sql.rows(ds, "SELECT tablename FROM pg_publication_tables WHERE pubname = ?", slot))
        .containsExactly("twinbox_outbox");
    List<Delivery> deliveries = new ArrayList<>();
    long offset = 0;
    for (OutboxMessage m : t.acked()) {
      deliveries.add(new Delivery("outbox", 0, offset++, m.aggregateId(), m.id(), m.aggregateType(), m.aggregateId(),
          m.sequence()));
    }
    CheckResult result = DeliveryChecker.check(committed, List.of(), deliveries);
    assertThat(result.ok()).as(result.describe(10)).isTrue();
    if (mode == CompletionMode.MARK) {
      assertThat(Sql.rows(ds, "SELECT count(DISTINCT tableoid) >= 3 FROM twinbox_outbox")).containsExactly("t");
      assertThat(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox WHERE status <> 'PUBLISHED'")).containsExactly("0");
    } else {
      assertThat(Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox")).containsExactly("0");
    }
    System.out.printf("WAL relay on a partitioned outbox (%s): %d events, %d deliveries, %s partitions%n", mode,
        committed.size(), deliveries.size(), Sql.rows(ds, "SELECT count(*) FROM twinbox_outbox_partitions").get(0));
    store.dropWalSlot(slot);
  }
}
