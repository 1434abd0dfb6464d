package io.twinbox.testkit.contract;

import static io.twinbox.testkit.contract.Sql.count;
import static io.twinbox.testkit.contract.Sql.exec;
import static io.twinbox.testkit.contract.Sql.rows;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.spi.StoreRules;
import io.twinbox.testkit.ListSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Whatever arrives ends processed or parked, and nothing can hold a partition or queue for good
 * (issue 22): parking is total — every field is clipped to its column, NUL is mapped, and a row
 * the database still refuses is parked as a minimal row — and every loop of the inbox consumer is
 * bounded: a handler runs at most {@code maxAttempts} times per message, failures back off.
 *
 * <p>Each scenario runs core's inbox consumer for at most {@value #PROBE_SECONDS} s (the issue's
 * probe) and then asserts what ended where.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InboxParkingContract {
  private static final int PROBE_SECONDS = 4;
  private static final RetryPolicy THREE_ATTEMPTS =
      RetryPolicy.builder().maxAttempts(3).backoff(Duration.ZERO, Duration.ofMillis(5)).build();

  private StoreFixture fixture;
  private DataSource ds;
  private InboxStore store;

  /** Takes the message's amount from the wallet, in the inbox's transaction. */
  private static final InboxHandler DEBIT = (c, m) -> {
    try (PreparedStatement ps = c.prepareStatement("UPDATE twinbox_test_wallet SET balance = balance - ? WHERE id = 1")) {
      ps.setInt(1, Integer.parseInt(m.payload().replaceAll("\\D", "")));
      ps.executeUpdate();
    }
  };

  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void setUpFixture() throws Exception {
    fixture = createFixture();
    ds = fixture.dataSource();
    store = fixture.inboxStore();
    exec(ds, "CREATE TABLE IF NOT EXISTS twinbox_test_wallet (id int PRIMARY KEY, balance int NOT NULL)");
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @BeforeEach
  final void reset() throws Exception {
    Sql.reset(ds);
    exec(ds, "DELETE FROM twinbox_test_wallet");
    exec(ds, "INSERT INTO twinbox_test_wallet VALUES (1, 1000)");
  }

  /** A message with every attribute given; the payload names the amount to debit. */
  static InboxMessage message(String id, String type, String aggregateId, String payload, Map<String, String> headers,
      String traceparent) {
    return new InboxMessage(id, type, 1, "/orders", "Order", aggregateId, 1, payload, headers, "corr-" + id, null,
        traceparent, null, "test@" + id);
  }

  static InboxMessage ok(String id, int amount) {
    return message(id, "OrderCreated", "o-" + id, "{\"amount\":" + amount + "}", Map.of(), null);
  }

  private static List<ReceivedMessage> items(InboxMessage... ms) {
    List<ReceivedMessage> items = new ArrayList<>();
    for (InboxMessage m : ms) {
      items.add(ListSource.received(m));
    }
    return items;
  }

  /**
   * Runs core's inbox consumer over the items, as one broker batch, for at most the probe's time;
   * returns how many it brought to a committed end (processed or parked).
   */
  private int runAtMost(Inbox inbox, InboxHandler handler, List<ReceivedMessage> items) throws InterruptedException {
    return new ListSource(items).runAtMost(Duration.ofSeconds(PROBE_SECONDS),
        b -> b.inbox(inbox, ds).handler(handler).batchSize(50).retryPolicy(THREE_ATTEMPTS));
  }

  private Inbox inbox(String consumer) {
    return Inbox.builder(store, consumer).build();
  }

  private long balance() throws Exception {
    return count(ds, "SELECT balance FROM twinbox_test_wallet WHERE id = 1");
  }

  /** Issue 22 probe 1: was 305 handler runs in 4 s and nothing parked. */
  @Test
  final void anUnprocessableMessageWithAnOverlongAggregateIdIsParkedAtOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.id().equals("u1")) {
        runs.incrementAndGet();
        throw new UnprocessableMessageException("contract version not supported");
      }
      DEBIT.handle(c, m);
    };
    InboxMessage poison = message("u1", "OrderCreated", "a".repeat(300), "{\"amount\":1}", Map.of(), null);

    int done = runAtMost(inbox("p1"), handler, items(ok("u0", 3), poison, ok("u2", 7)));

    assertThat(runs).as("an unprocessable message runs its handler once").hasValue(1);
    assertThat(done).isEqualTo(3);
    assertThat(balance()).isEqualTo(1000 - 3 - 7);
    assertThat(rows(ds, "SELECT message_id, aggregate_id, reason FROM twinbox_inbox_parked WHERE consumer = 'p1'"))
        .singleElement().asString()
        .startsWith("u1|" + "a".repeat(255) + "|unprocessable")
        .contains("aggregate_id clipped from 300 to 255 characters");
  }

  /** Issue 22 probe 2: was 226 handler runs in 4 s and nothing parked. */
  @Test
  final void aFailingHandlerWithAnOverlongTraceparentRunsMaxAttemptsTimesThenIsParked() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.id().equals("t1")) {
        runs.incrementAndGet();
        throw new IllegalStateException("downstream refuses");
      }
      DEBIT.handle(c, m);
    };
    String traceparent = "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01" + "-extra".repeat(3); // 73 characters
    InboxMessage poison = message("t1", "OrderCreated", "o-t1", "{\"amount\":1}", Map.of(), traceparent);

    int done = runAtMost(inbox("p2"), handler, items(poison, ok("t2", 7)));

    assertThat(runs).as("maxAttempts").hasValue(3);
    assertThat(done).isEqualTo(2);
    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT traceparent, reason FROM twinbox_inbox_parked WHERE consumer = 'p2'"))
        .singleElement().asString()
        .startsWith(traceparent.substring(0, 55) + "|handler failed 3 times")
        .contains("traceparent clipped from 73 to 55 characters");
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox_attempt")).as("attempts cleared once parked").isZero();
  }

  /**
   * A handler that throws an {@link Error} for one message (an assertion, a stack overflow on a deep
   * payload) spends that message's attempts and parks it like any failure; the consumer keeps going.
   * Was: the consumer's thread died on the first run and nothing after the message was consumed.
   */
  @Test
  final void aHandlerThatThrowsAnErrorSpendsItsAttemptsAndTheConsumerKeepsGoing() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.id().equals("e1")) {
        if (runs.incrementAndGet() == 2) {
          throw new StackOverflowError();
        }
        throw new AssertionError("the handler's own check failed");
      }
      DEBIT.handle(c, m);
    };

    int done = runAtMost(inbox("p-error"), handler, items(ok("e0", 3), ok("e1", 5), ok("e2", 7)));

    assertThat(runs).as("maxAttempts").hasValue(3);
    assertThat(done).isEqualTo(3);
    assertThat(balance()).isEqualTo(1000 - 3 - 7);
    assertThat(rows(ds, "SELECT message_id, reason FROM twinbox_inbox_parked WHERE consumer = 'p-error'"))
        .singleElement().asString()
        .startsWith("e1|handler failed 3 times")
        .contains("AssertionError");
  }

  /** Issue 22 probe 3: was retried forever on PostgreSQL (text and jsonb refuse U+0000). */
  @Test
  final void anUndecodableMessageWithNulBytesIsParked() throws Exception {
    InboxMessage raw = message("kafka:t-0@7", "unreadable", null, "not\u0000json", Map.of("x-h\u0000", "v\u0000w"),
        null);
    List<ReceivedMessage> items = new ArrayList<>();
    items.add(ListSource.undecodable(raw, "not a CloudEvent"));
    items.addAll(items(ok("n2", 7)));

    assertThat(runAtMost(inbox("p3"), DEBIT, items)).isEqualTo(2);

    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT message_id, payload, headers, reason FROM twinbox_inbox_parked WHERE consumer = 'p3'"))
        .singleElement().asString()
        .startsWith("kafka:t-0@7|base64:" + Base64.getEncoder().encodeToString("not\u0000json".getBytes(UTF_8)) + "|")
        .contains("v\u2400w")
        .contains("not a CloudEvent")
        .contains("NUL");
  }

  /**
   * Issue 22 probe 4: the conflict was parked inside the batch's transaction; its failure (a
   * 300-character type) rolled back the healthy message before it, and the batch was retried forever.
   */
  @Test
  final void aConflictIsParkedOnItsOwnAfterTheMessagesBeforeItCommit() throws Exception {
    Inbox inbox = inbox("p4");
    assertThat(runAtMost(inbox, DEBIT, items(ok("c1", 10)))).isEqualTo(1);
    InboxMessage reused = message("c1", "X".repeat(300), "o-c1", "{\"amount\":99}", Map.of(), null);

    assertThat(runAtMost(inbox, DEBIT, items(ok("c0", 5), reused, ok("c2", 3)))).isEqualTo(3);

    assertThat(balance()).isEqualTo(1000 - 10 - 5 - 3);
    assertThat(rows(ds, "SELECT type, reason FROM twinbox_inbox_parked WHERE consumer = 'p4'"))
        .singleElement().asString()
        .startsWith("X".repeat(255) + "|")
        .contains("different payload")
        .contains("type clipped from 300 to 255 characters");
  }

  /** A redelivery of the conflicting message is recognised; it is not parked a second time. */
  @Test
  final void aRedeliveredConflictIsParkedOnce() throws Exception {
    Inbox inbox = inbox("p5");
    assertThat(runAtMost(inbox, DEBIT, items(ok("r1", 10)))).isEqualTo(1);
    InboxMessage reused = ok("r1", 99);

    assertThat(runAtMost(inbox, DEBIT, items(reused, reused, ok("r2", 1)))).isEqualTo(3);
    assertThat(runAtMost(inbox, DEBIT, items(reused))).isEqualTo(1);

    assertThat(balance()).isEqualTo(1000 - 10 - 1);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'p5'")).isEqualTo(1);
  }

  /**
   * A second, different unreadable message with an id already used (a reused AMQP message-id, or
   * Kafka's {@code kafka:<topic>-<p>@<offset>} after the topic was recreated) was acknowledged and
   * dropped as a duplicate. It is parked under a derived id; a redelivery of either is recognised.
   */
  @Test
  final void aDifferentUnreadableMessageWithAKnownIdIsParkedUnderADerivedId() throws Exception {
    Inbox inbox = inbox("p6");
    InboxMessage first = message("rabbitmq:m-1", "unreadable", null, "hello", Map.of(), null);
    InboxMessage second = message("rabbitmq:m-1", "unreadable", null, "other bytes", Map.of(), null);
    List<ReceivedMessage> items = new ArrayList<>();
    for (InboxMessage m : List.of(first, second, first, second)) {
      items.add(ListSource.undecodable(m, "not a CloudEvent"));
    }

    assertThat(runAtMost(inbox, DEBIT, items)).isEqualTo(4);

    assertThat(rows(ds, "SELECT payload FROM twinbox_inbox_parked WHERE consumer = 'p6' ORDER BY id"))
        .containsExactly("hello", "other bytes");
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'p6' AND payload = 'other bytes'"))
        .singleElement().asString().contains("rabbitmq:m-1").contains("already");
  }

  /** An id PostgreSQL cannot store (a NUL) made every {@code record} fail: retried forever. */
  @Test
  final void aMessageWhoseIdCannotBeRecordedIsParkedUnderADerivedId() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler counting = (c, m) -> {
      runs.incrementAndGet();
      DEBIT.handle(c, m);
    };

    assertThat(runAtMost(inbox("p7"), counting, items(ok("bad\u0000id", 1), ok("i2", 7)))).isEqualTo(2);

    assertThat(runs).as("no handler runs for a message the inbox cannot record").hasValue(1);
    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'p7'"))
        .singleElement().asString().contains("message id").contains("NUL");
  }

  /** A handler error whose text holds a NUL made {@code recordAttempt} fail on PostgreSQL: endless runs. */
  @Test
  final void aHandlerErrorWithANulStillCountsItsAttempts() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.id().equals("e1")) {
        runs.incrementAndGet();
        throw new IllegalStateException("bad input \u0000 from upstream");
      }
      DEBIT.handle(c, m);
    };

    int done = runAtMost(inbox("p8"), handler, items(ok("e1", 1), ok("e2", 7)));

    assertThat(runs).as("maxAttempts").hasValue(3);
    assertThat(done).isEqualTo(2);
    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'p8'"))
        .singleElement().asString().contains("handler failed 3 times").contains("bad input \\x00 from upstream");
  }

  /**
   * A row the database refuses whatever the clipping (here: a CHECK an operator added, standing for
   * any limit the code cannot know) is parked as a minimal row: id, consumer, hash, reason, attempts.
   */
  @Test
  final void aRowTheDatabaseRefusesIsParkedAsAMinimalRow() throws Exception {
    exec(ds, "ALTER TABLE twinbox_inbox_parked ADD CONSTRAINT twinbox_test_refuse CHECK (type <> 'Refused')");
    try {
      AtomicInteger runs = new AtomicInteger();
      InboxHandler handler = (c, m) -> {
        if (m.id().equals("f1")) {
          runs.incrementAndGet();
          throw new UnprocessableMessageException("no");
        }
        DEBIT.handle(c, m);
      };
      InboxMessage refused = message("f1", "Refused", "o-f1", "{\"amount\":1}", Map.of("h", "v"), null);

      assertThat(runAtMost(inbox("p9"), handler, items(refused, ok("f2", 7)))).isEqualTo(2);

      assertThat(runs).hasValue(1);
      assertThat(balance()).isEqualTo(1000 - 7);
      assertThat(rows(ds, "SELECT message_id, type, payload, payload_hash, attempts, reason FROM twinbox_inbox_parked"
          + " WHERE consumer = 'p9'"))
          .singleElement().asString()
          .matches("f1\\|null\\|null\\|[0-9a-f]{64}\\|1\\|unprocessable: .*")
          .contains("full row refused");
    } finally {
      exec(ds, "ALTER TABLE twinbox_inbox_parked DROP CONSTRAINT twinbox_test_refuse");
    }
  }

  /**
   * When not even the minimal row can be stored, the consumer retries only the park — never the
   * handler — with a growing pause, and the listener hears of each failed park (the metric).
   */
  @Test
  final void aParkThatKeepsFailingIsRetriedWithBackoffAndCounted() throws Exception {
    exec(ds, "ALTER TABLE twinbox_inbox_parked ADD CONSTRAINT twinbox_test_refuse_all CHECK (attempts < 0)");
    try {
      List<String> failedParks = Collections.synchronizedList(new ArrayList<>());
      Inbox inbox = Inbox.builder(store, "p10").listener(new InboxListener() {
        @Override
        public void parkFailed(InboxMessage m, String reason) {
          failedParks.add(m.id());
        }
      }).build();
      AtomicInteger runs = new AtomicInteger();
      InboxHandler handler = (c, m) -> {
        runs.incrementAndGet();
        throw new UnprocessableMessageException("no");
      };

      assertThat(runAtMost(inbox, handler, items(ok("g1", 1), ok("g2", 1)))).as("held: nothing is lost").isZero();

      assertThat(runs).as("the handler of a message to be parked never runs again").hasValue(1);
      assertThat(failedParks).as("each failed park is reported").isNotEmpty().containsOnly("g1")
          // Without a pause the loop retried hundreds of times in the probe's 4 s; the backoff
          // (0.2 s doubling, capped at 5 s) allows a handful.
          .hasSizeLessThanOrEqualTo(6);
    } finally {
      exec(ds, "ALTER TABLE twinbox_inbox_parked DROP CONSTRAINT twinbox_test_refuse_all");
    }
  }

  /** An unprocessable message inside a batch runs its handler once, not once more as the head. */
  @Test
  final void anUnprocessableMessageInsideABatchRunsItsHandlerOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    InboxHandler handler = (c, m) -> {
      if (m.id().equals("b2")) {
        runs.incrementAndGet();
        throw new UnprocessableMessageException("unknown type");
      }
      DEBIT.handle(c, m);
    };

    assertThat(runAtMost(inbox("p11"), handler, items(ok("b1", 1), ok("b2", 1), ok("b3", 1)))).isEqualTo(3);

    assertThat(runs).hasValue(1);
    assertThat(balance()).isEqualTo(1000 - 2);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'p11'")).isEqualTo(1);
  }

  /** The limits parking clips to are declared once ({@link StoreRules#parkedColumns()}) and are the schema's. */
  @Test
  final void theColumnLimitsParkingClipsToAreTheSchemas() throws Exception {
    assertThat(columnSizes("twinbox_inbox_parked")).containsAllEntriesOf(StoreRules.parkedColumns());
    Map<String, Integer> records = new HashMap<>(columnSizes("twinbox_inbox"));
    records.putAll(columnSizes("twinbox_inbox_attempt"));
    assertThat(records).containsAllEntriesOf(StoreRules.recordColumns());
  }

  private Map<String, Integer> columnSizes(String table) throws Exception {
    Map<String, Integer> sizes = new HashMap<>();
    try (Connection c = ds.getConnection();
        ResultSet rs = c.getMetaData().getColumns(c.getCatalog(), c.getSchema(), table, null)) {
      while (rs.next()) {
        sizes.put(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT), rs.getInt("COLUMN_SIZE"));
      }
    }
    return sizes;
  }

  /** Headers beyond what the column holds (64 KB on MariaDB) are kept while they fit, and the reason says so. */
  @Test
  final void headersBeyondTheColumnAreKeptWhileTheyFit() throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      headers.put("h" + i, "v".repeat(1_000));
    }
    InboxMessage many = message("h1", "OrderCreated", "o-h1", "{\"amount\":1}", headers, null);

    assertThat(runAtMost(inbox("p12"), unprocessable("h1"), items(many, ok("h2", 7)))).isEqualTo(2);

    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT reason FROM twinbox_inbox_parked WHERE consumer = 'p12'"))
        .singleElement().asString().contains("headers: 64 of 100 stored (65535-byte limit)");
  }

  /**
   * A payload larger than the database takes in one statement (MariaDB's {@code max_allowed_packet},
   * 16 MB by default: beyond it the server drops the connection, SQLSTATE 08S01, on every retry)
   * still parks: in full where the database takes it, else without the payload, which its hash
   * identifies.
   */
  @Test
  final void aPayloadTooLargeForTheDatabaseIsStillParked() throws Exception {
    String huge = "\"" + "x".repeat(20 * 1024 * 1024) + "\"";
    InboxMessage big = message("z1", "OrderCreated", "o-z1", huge, Map.of(), null);

    assertThat(runAtMost(inbox("p13"), unprocessable("z1"), items(big, ok("z2", 7)))).isEqualTo(2);

    assertThat(balance()).isEqualTo(1000 - 7);
    assertThat(rows(ds, "SELECT payload_hash, CASE WHEN payload IS NULL THEN 'left out' ELSE 'stored' END, reason"
        + " FROM twinbox_inbox_parked WHERE consumer = 'p13'"))
        .singleElement().asString()
        .startsWith(StoreRules.payloadHash(big) + "|")
        .satisfiesAnyOf(r -> assertThat(r).contains("|stored|unprocessable").doesNotContain("not stored"),
            r -> assertThat(r).contains("|left out|unprocessable").contains("bytes not stored"));
  }

  /**
   * An id the database compares equal to another one already recorded (MariaDB's PAD SPACE
   * collation: {@code 'x '} equals {@code 'x'}) was skipped as a duplicate without a look at its
   * content. Whatever the store, it ends processed or parked: never dropped.
   */
  @Test
  final void anIdTheDatabaseTakesForAnotherIsNeverDropped() throws Exception {
    Inbox inbox = inbox("p14");
    AtomicInteger runs = new AtomicInteger();
    InboxHandler counting = (c, m) -> {
      runs.incrementAndGet();
      DEBIT.handle(c, m);
    };

    assertThat(runAtMost(inbox, counting, items(ok("pad", 10)))).isEqualTo(1);
    assertThat(runAtMost(inbox, counting, items(ok("pad ", 10), ok("pad ", 10)))).isEqualTo(2);

    long parked = count(ds, "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = 'p14'");
    assertThat(runs.get() + parked).as("applied or parked, once each").isEqualTo(2);
    assertThat(balance()).isEqualTo(1000 - 10L * runs.get());
  }

  private static InboxHandler unprocessable(String id) {
    return (c, m) -> {
      if (m.id().equals(id)) {
        throw new UnprocessableMessageException("no");
      }
      DEBIT.handle(c, m);
    };
  }
}
