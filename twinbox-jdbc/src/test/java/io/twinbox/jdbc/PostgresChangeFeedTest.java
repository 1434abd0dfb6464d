package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.jdbc.internal.wal.PartitionHash;
import io.twinbox.spi.Change;
import io.twinbox.spi.ChangeFeed;
import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.GroupKey;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.spi.UndecodableRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL change feed on a private {@code wal_level=logical} cluster: what it decodes is
 * exactly what the polling claim returns for the same rows; rolled-back rows never arrive; a row
 * the relay cannot read arrives as unreadable (row by row, the stream goes on); the partition is
 * the schema's; Twinbox's slots are listed and dropped.
 */
class PostgresChangeFeedTest {
  private static LogicalCluster pg;
  private static DataSource ds;
  private static JdbcStore store;

  @BeforeAll
  static void cluster() {
    pg = LogicalCluster.start(Map.of());
    ds = pg.database("feed");
    store = JdbcStore.builder(ds).build();
    store.migrate();
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void decodedRowsAreExactlyWhatTheClaimReturns() throws Exception {
    String slot = "twinbox_decode";
    store.prepareChangeFeed(slot);
    Outbox outbox = Outbox.builder(store).build();
    List<OutboxEvent> events = List.of(
        OutboxEvent.builder("OrderCreated", 2).aggregate("Order", "o-1").payload("{\"a\": [1, 2.50, \"x\"]}")
            .header("tenant", "acme").header("note", "çødé ünï ✓").correlationId("corr-1").causationId("cause-1")
            .traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01").build(),
        OutboxEvent.builder("OrderChanged", 1).aggregate("Order", "o-1").payload("{\"big\": 12345678901234567890}")
            .build(),
        OutboxEvent.builder("Κλειδί", 1).aggregate("Agrégat/ünïcode", "ключ-42").payload("\"just a string\"").build(),
        OutboxEvent.builder("Ping", 1).unordered("Ping").payload("null").build());
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      outbox.writeAll(c, events);
      c.commit();
      outbox.write(c, OutboxEvent.builder("Never", 1).aggregate("Order", "o-2").payload("{}").build());
      c.rollback();
    }
    // A plain-SQL writer's row whose headers are not an object, between two good ones.
    // The schema refuses such a row from a writer that leaves id and sequence to it; one that sets
    // both bypasses the insert checks (README, "Plain-SQL writers"), so the feed must cope with it.
    exec("INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload, headers)"
        + " VALUES (gen_random_uuid(), 'Sql', 's-1', 1, 'Good', 1, '{}', '{}'),"
        + " (gen_random_uuid(), 'Sql', 's-2', 1, 'Bad', 1, '{}', '[]'),"
        + " (gen_random_uuid(), 'Sql', 's-3', 1, 'Good', 1, '{}', '{\"k\": \"v\"}')");

    List<Change> changes;
    try (ChangeFeed feed = store.openChangeFeed(slot, () -> true, 1_000)) {
      changes = pollUntil(feed, 7);
    }
    List<OutboxMessage> streamed = changes.stream().filter(Change.Insert.class::isInstance)
        .map(c -> ((Change.Insert) c).message()).toList();
    List<Change.Unreadable> unreadable = changes.stream().filter(Change.Unreadable.class::isInstance)
        .map(Change.Unreadable.class::cast).toList();
    assertThat(changes.stream().filter(Change.Begin.class::isInstance)).hasSize(2);
    assertThat(changes.stream().filter(Change.Commit.class::isInstance)).hasSize(2);
    assertThat(streamed).hasSize(6);
    assertThat(streamed).extracting(OutboxMessage::type).doesNotContain("Never", "Bad");
    assertThat(unreadable).singleElement().satisfies(u -> {
      assertThat(u.group()).isEqualTo(new GroupKey("Sql", "s-2", true));
      assertThat(u.reason()).contains("headers");
    });
    assertThat(changes.stream().filter(Change.Insert.class::isInstance).map(c -> ((Change.Insert) c).ready()))
        .containsOnly(true);

    // The polling claim reads the same rows: the same messages, and the same row undecodable.
    List<PartitionLease> leases = store.acquire("claimer", JdbcStore.PARTITIONS, Duration.ofMinutes(1));
    List<ClaimedRow> rows = store.claim("claimer", leases, 100);
    store.release("claimer", leases);
    List<OutboxMessage> claimed = new ArrayList<>();
    rows.stream().filter(OutboxMessage.class::isInstance).map(OutboxMessage.class::cast).forEach(claimed::add);
    assertThat(rows.stream().filter(UndecodableRow.class::isInstance).map(UndecodableRow.class::cast))
        .singleElement().satisfies(u -> assertThat(u.aggregateId()).isEqualTo("s-2"));
    claimed.sort(Comparator.comparingLong(OutboxMessage::position));
    assertThat(streamed).containsExactlyElementsOf(claimed);
    store.dropWalSlot(slot);
  }

  @Test
  void partitionsAreTheSchemasGeneratedColumn() throws Exception {
    Random random = new Random(15);
    List<String[]> keys = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      keys.add(new String[] {randomText(random, 1 + random.nextInt(20)), randomText(random, random.nextInt(60))});
    }
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT (hashtextextended(t || '/' || k, 0) & 63)::int"
                + " FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(t, k, n) ORDER BY n")) {
      ps.setArray(1, c.createArrayOf("text", keys.stream().map(k -> k[0]).toArray()));
      ps.setArray(2, c.createArrayOf("text", keys.stream().map(k -> k[1]).toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        for (String[] k : keys) {
          rs.next();
          assertThat(PartitionHash.partition(k[0], k[1], 64)).as("partition of %s/%s", k[0], k[1])
              .isEqualTo(rs.getInt(1));
        }
      }
    }
  }

  @Test
  void twinboxSlotsAreListedAndDropped() {
    store.prepareChangeFeed("twinbox_listed");
    pg.exec("feed", "SELECT pg_create_logical_replication_slot('someone_else', 'test_decoding')");
    try {
      assertThat(store.walSlots()).extracting(WalSlot::name).contains("twinbox_listed").doesNotContain("someone_else");
      WalSlot listed = store.walSlots().stream().filter(s -> s.name().equals("twinbox_listed")).findFirst().orElseThrow();
      assertThat(listed.database()).isEqualTo("feed");
      assertThat(listed.active()).isFalse();
      assertThat(listed.lagBytes()).isGreaterThanOrEqualTo(0);

      assertThat(store.dropWalSlot("twinbox_listed")).isTrue();
      assertThat(store.dropWalSlot("twinbox_listed")).isFalse();
      assertThat(store.walSlots()).extracting(WalSlot::name).doesNotContain("twinbox_listed");
      assertThat(publications()).doesNotContain("twinbox_listed");
      assertThat(pg.slotNames()).contains("someone_else");
    } finally {
      pg.exec("feed", "SELECT pg_drop_replication_slot('someone_else')");
    }
  }

  /**
   * A graceful close leaves the server holding the last confirmed position, also while the server
   * is still sending WAL the feed no longer reads: otherwise the next streamer replays what was
   * published since the last status update the server happened to process (seen in CI as 230
   * duplicates after a graceful stop of a WAL relay). Writers keep the walsender busy; the feed's
   * small buffer is full, so the server's send buffer fills too, as in a relay closing under load.
   */
  @Test
  void theLastConfirmationIsHeldByTheServerWhenTheFeedClosesUnderLoad() throws Exception {
    String slot = "twinbox_close";
    DataSource closeDs = pg.database("close");
    JdbcStore closeStore = JdbcStore.builder(closeDs).build();
    closeStore.migrate();
    closeStore.prepareChangeFeed(slot);
    Outbox outbox = Outbox.builder(closeStore).build();
    String payload = "{\"pad\": \"" + "x".repeat(4_000) + "\"}";
    java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicReference<Throwable> writerFailure = new java.util.concurrent.atomic.AtomicReference<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      int writer = w;
      Thread t = new Thread(() -> {
        try (Connection c = closeDs.getConnection()) {
          c.setAutoCommit(false);
          for (int n = 0; writing.get(); n++) {
            List<OutboxEvent> tx = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
              tx.add(OutboxEvent.builder("Padded", 1).aggregate("Close", "w" + writer + "-" + (n % 50)).payload(payload)
                  .build());
            }
            outbox.writeAll(c, tx);
            c.commit();
          }
        } catch (Throwable e) {
          writerFailure.set(e);
        }
      });
      t.start();
      writers.add(t);
    }
    try {
      for (int round = 0; round < 6; round++) {
        long confirmed = -1;
        try (ChangeFeed feed = closeStore.openChangeFeed(slot, () -> true, 50)) {
          long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          int commits = 0;
          while (commits < 40 + round * 20 && System.nanoTime() < deadline) {
            for (Change c : feed.poll(50, Duration.ofMillis(200))) {
              if (c instanceof Change.Commit k) {
                commits++;
                confirmed = k.endLsn();
                feed.confirm(confirmed);
              }
            }
          }
          assertThat(commits).as("commits streamed in round %d", round).isGreaterThanOrEqualTo(40);
          Thread.sleep(round * 40L); // the last confirmation lands anywhere between two status updates
          for (Change c : feed.poll(50, Duration.ZERO)) {
            if (c instanceof Change.Commit k) {
              confirmed = k.endLsn();
            }
          }
          feed.confirm(confirmed);
        }
        assertThat(serverConfirmed(closeDs, slot)).as("round %d: the server's confirmed position after the close", round)
            .isEqualTo(confirmed);
      }
    } finally {
      writing.set(false);
      for (Thread t : writers) {
        t.join(10_000);
      }
      closeStore.dropWalSlot(slot);
    }
    assertThat(writerFailure.get()).isNull();
  }

  private static long serverConfirmed(DataSource on, String slot) throws java.sql.SQLException {
    try (Connection c = on.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void defaultSlotNameIsPerDatabase() {
    assertThat(store.defaultFeedName()).isEqualTo("twinbox_feed");
  }

  private static List<Change> pollUntil(ChangeFeed feed, int rows) throws InterruptedException {
    List<Change> all = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (all.stream().filter(c -> c instanceof Change.Insert || c instanceof Change.Unreadable).count() < rows
        && System.nanoTime() < deadline) {
      all.addAll(feed.poll(100, Duration.ofMillis(200)));
    }
    all.addAll(feed.poll(100, Duration.ofMillis(300))); // nothing more may come
    return all;
  }

  private static String randomText(Random r, int length) {
    String alphabet = "abcXYZ019-_/ .:äöüßéñçøΚλειδίключ漢字🙂";
    StringBuilder sb = new StringBuilder();
    while (sb.length() < length) {
      sb.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, r.nextInt(alphabet.codePointCount(0,
          alphabet.length())))));
    }
    return sb.toString();
  }

  private static Set<String> publications() {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pubname FROM pg_publication")) {
      Set<String> out = new java.util.HashSet<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void exec(String sql) throws java.sql.SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  static Set<String> ids(List<OutboxMessage> ms) {
    return ms.stream().map(m -> m.id().toString()).collect(Collectors.toSet());
  }
}
