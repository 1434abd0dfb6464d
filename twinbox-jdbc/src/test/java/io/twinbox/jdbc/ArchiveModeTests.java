package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.twinbox.CompletionMode;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Relay;
import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import io.twinbox.StoredEvent;
import io.twinbox.jdbc.internal.AdminSql;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.testkit.contract.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 18's archive mode on a real database (acceptance 4): PUBLISHED rows are moved to
 * twinbox_outbox_archive with every column equal to the row before (payload and headers byte-equal),
 * the outbox shrinks, PENDING and FAILED rows stay, a failing batch moves nothing, and archive-mode
 * retention behind a running relay loses nothing. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ArchiveModeTests {
  private static final Duration SECOND = Duration.ofSeconds(1);
  private static final String COLUMNS = AdminSql.ARCHIVE_COLUMNS.replaceAll("\\s+", " ");
  JdbcFixture fixture;

  abstract JdbcFixture createFixture();

  /** Makes every DELETE of the outbox row at {@code position} fail (a trigger); {@link #allowDeletes} undoes it. */
  abstract void failDeletesOf(long position) throws Exception;

  abstract void allowDeletes() throws Exception;

  @BeforeAll
  final void setUpFixture() {
    fixture = createFixture();
  }

  @AfterAll
  final void closeFixture() {
    fixture.close();
  }

  @BeforeEach
  final void clean() throws Exception {
    fixture.reset();
    Sql.exec(fixture.dataSource(), "DELETE FROM twinbox_outbox_archive");
  }

  long count(String sql) throws Exception {
    return Sql.count(fixture.dataSource(), sql);
  }

  /** Every column of every row of {@code table}, as strings, by position. */
  Map<Long, List<String>> rows(String table) throws Exception {
    Map<Long, List<String>> out = new LinkedHashMap<>();
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + COLUMNS + " FROM " + table + " ORDER BY position")) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.put(rs.getLong(1), row);
      }
    }
    return out;
  }

  void write(Outbox outbox, String aggregateId, int n) throws Exception {
    try (Connection c = fixture.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        outbox.write(c, OutboxEvent.builder("OrderCreated", 1).aggregate("Order", aggregateId)
            .payload("{\"n\": " + i + ", \"text\": \"caf\u00e9 \\u00e9 \u2603\"}").header("tenant", "t-" + i)
            .correlationId("corr-" + i).build());
      }
      c.commit();
    }
  }

  void publishAll() throws Exception {
    Sql.exec(fixture.dataSource(), "UPDATE twinbox_outbox SET status = 'PUBLISHED', published_at = created_at,"
        + " attempts = 1, last_error = 'once refused' WHERE status = 'PENDING'");
  }

  @Test
  final void archivedRowsAreCompleteTheOutboxShrinksAndPendingAndFailedStay() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    write(outbox, "o-1", 25);
    write(outbox, "o-2", 20);
    publishAll();
    write(outbox, "pending", 3);
    write(outbox, "failed", 2);
    Sql.exec(fixture.dataSource(), "UPDATE twinbox_outbox SET status = 'FAILED', last_error = 'x',"
        + " published_at = created_at WHERE aggregate_id = 'failed'");
    Thread.sleep(1_100);
    Map<Long, List<String>> before = rows("twinbox_outbox");
    List<byte[]> payloadsBefore = bytes("twinbox_outbox", "payload");
    List<byte[]> headersBefore = bytes("twinbox_outbox", "headers");
    List<Integer> batches = new CopyOnWriteArrayList<>();
    RetentionListener listener = new RetentionListener() {
      @Override
      public void deleted(Kind kind, int rows) {
        assertThat(kind).isEqualTo(Kind.ARCHIVED_EVENTS);
        batches.add(rows);
      }
    };
    Retention.Result result = Retention.builder().outbox(fixture.adminStore(), SECOND).archive(true).batchSize(10)
        .pause(Duration.ZERO).listener(listener).build().runOnce();

    assertThat(result.publishedEvents()).isEqualTo(45);
    assertThat(batches).containsExactly(10, 10, 10, 10, 5);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).as("the outbox shrank to the pending and failed")
        .isEqualTo(5);
    assertThat(count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'")).isZero();
    Map<Long, List<String>> archived = rows("twinbox_outbox_archive");
    assertThat(archived).hasSize(45);
    archived.forEach((position, row) -> assertThat(row).as("archived row %d", position)
        .isEqualTo(before.get(position)));
    assertThat(archived.values()).allSatisfy(r -> assertThat(r.get(15)).isEqualTo("PUBLISHED"));
    // payload and headers byte for byte
    List<Long> archivedPositions = new ArrayList<>(archived.keySet());
    List<Long> all = new ArrayList<>(before.keySet());
    List<byte[]> payloadsAfter = bytes("twinbox_outbox_archive", "payload");
    List<byte[]> headersAfter = bytes("twinbox_outbox_archive", "headers");
    for (int i = 0; i < archivedPositions.size(); i++) {
      int j = all.indexOf(archivedPositions.get(i));
      assertThat(payloadsAfter.get(i)).isEqualTo(payloadsBefore.get(j));
      assertThat(headersAfter.get(i)).isEqualTo(headersBefore.get(j));
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox_archive WHERE archived_at IS NULL")).isZero();
    // readable through the admin store
    assertThat(fixture.jdbcStore().countArchived()).isEqualTo(45);
    List<StoredEvent> o2 = fixture.jdbcStore().archived("Order", "o-2", 100);
    assertThat(o2).hasSize(20).extracting(StoredEvent::sequence)
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList());
    assertThat(o2).allSatisfy(e -> assertThat(e.status()).isEqualTo("PUBLISHED"));
  }

  List<byte[]> bytes(String table, String column) throws Exception {
    List<byte[]> out = new ArrayList<>();
    try (Connection c = fixture.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + column + " FROM " + table + " ORDER BY position")) {
      while (rs.next()) {
        out.add(rs.getString(1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  @Test
  final void migrateRunsAgainOverAnArchiveThatHoldsRows() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    write(outbox, "o-1", 3);
    publishAll();
    Thread.sleep(1_100);
    assertThat(fixture.jdbcStore().archivePublished(SECOND, 10)).isEqualTo(3);
    fixture.jdbcStore().migrate();
    fixture.jdbcStore().migrate();
    assertThat(fixture.jdbcStore().countArchived()).isEqualTo(3);
  }

  @Test
  final void aBatchThatFailsMovesNothing() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    write(outbox, "o-1", 10);
    publishAll();
    Thread.sleep(1_100);
    // An archive row already holding the position of the batch's last row: its insert fails.
    long last = count("SELECT max(position) FROM twinbox_outbox");
    Sql.exec(fixture.dataSource(), "INSERT INTO twinbox_outbox_archive (" + COLUMNS + ") SELECT " + COLUMNS
        + " FROM twinbox_outbox WHERE position = " + last);
    assertThatThrownBy(() -> fixture.jdbcStore().archivePublished(SECOND, 10)).isInstanceOf(RuntimeException.class);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).as("nothing deleted").isEqualTo(10);
    assertThat(count("SELECT count(*) FROM twinbox_outbox_archive")).as("nothing copied").isEqualTo(1);
    Sql.exec(fixture.dataSource(), "DELETE FROM twinbox_outbox_archive");
    assertThat(fixture.jdbcStore().archivePublished(SECOND, 10)).isEqualTo(10);
    assertThat(count("SELECT count(*) FROM twinbox_outbox")).isZero();
    assertThat(count("SELECT count(*) FROM twinbox_outbox_archive")).isEqualTo(10);
  }

  /** The copy succeeded, the delete fails: the copy is rolled back with it. */
  @Test
  final void aBatchWhoseDeleteFailsCopiesNothing() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    write(outbox, "o-1", 10);
    publishAll();
    Thread.sleep(1_100);
    long last = count("SELECT max(position) FROM twinbox_outbox");
    failDeletesOf(last);
    try {
      assertThatThrownBy(() -> fixture.jdbcStore().archivePublished(SECOND, 10))
          .isInstanceOf(RuntimeException.class);
      assertThat(count("SELECT count(*) FROM twinbox_outbox")).as("nothing deleted").isEqualTo(10);
      assertThat(count("SELECT count(*) FROM twinbox_outbox_archive")).as("nothing copied").isZero();
    } finally {
      allowDeletes();
    }
    assertThat(fixture.jdbcStore().archivePublished(SECOND, 10)).isEqualTo(10);
    assertThat(count("SELECT count(*) FROM twinbox_outbox_archive")).isEqualTo(10);
  }

  @Test
  final void archiveModeRetentionWhileARelayRunsLosesNothing() throws Exception {
    Outbox outbox = Outbox.builder(fixture.store()).build();
    RecordingTransport transport = RecordingTransport.acking();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger written = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    AtomicInteger archivedRows = new AtomicInteger();
    RetentionListener listener = new RetentionListener() {
      @Override
      public void deleted(Kind kind, int rows) {
        archivedRows.addAndGet(rows);
      }
    };
    try (Relay relay = Relay.builder(fixture.store(), transport).completionMode(CompletionMode.MARK)
        .leaseTtl(Duration.ofSeconds(2)).build();
        Retention retention = Retention.builder().outbox(fixture.adminStore(), SECOND).archive(true).batchSize(40)
            .pause(Duration.ofMillis(5)).period(Duration.ofMillis(300)).listener(listener).build()) {
      relay.start();
      Thread writer = new Thread(() -> {
        try {
          for (int i = 0; writing.get(); i++) {
            write(outbox, "o-" + (i % 13), 20);
            written.addAndGet(20);
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      });
      writer.start();
      retention.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> archivedRows.get() > 400);
      writing.set(false);
      writer.join();
      assertThat(errors).isEmpty();
      await().atMost(Duration.ofSeconds(30)).until(() -> transport.acked().size() == written.get());
      await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM twinbox_outbox") == 0);
    }
    assertThat(count("SELECT count(*) FROM twinbox_outbox_archive")).as("every row archived once")
        .isEqualTo(written.get());
    assertThat(count("SELECT count(DISTINCT id) FROM twinbox_outbox_archive")).isEqualTo(written.get());
    assertThat(archivedRows.get()).isEqualTo(written.get());
    assertThat(transport.acked().stream().map(m -> m.id()).distinct().count()).isEqualTo(written.get());
  }
}
