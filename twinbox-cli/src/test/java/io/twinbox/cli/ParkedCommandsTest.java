package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.RetryPolicy;
import io.twinbox.UnprocessableMessageException;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.ListSource;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code twinbox parked list|show|replay|discard} on a real PostgreSQL database whose messages a
 * real {@link InboxConsumer} parked: issue 17's acceptance 2 through the CLI (a fixed handler's
 * replay applies once, a second replay changes nothing, discard leaves an audit record) and 5 (an
 * unknown id, a discard after a replay, an invalid duration: clear errors, exit codes 1 and 2,
 * nothing changed); reasons with control characters shown visibly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParkedCommandsTest {
  /** A fresh database and how the CLI logs in to it. */
  record Db(javax.sql.DataSource dataSource, Map<String, String> env, AutoCloseable owner) {}

  Db db;
  Cli cli;
  JdbcInboxStore store;
  static final AtomicBoolean broken = new AtomicBoolean(true);

  /** The database under test: PostgreSQL here, MariaDB in {@link MariaDbParkedCommandsTest}. */
  Db open() {
    PostgresDatabase pg = PostgresDatabase.create();
    return new Db(pg.dataSource(), Map.of("TWINBOX_DB_URL", pg.jdbcUrl(), "TWINBOX_DB_USER", pg.user(),
        "TWINBOX_DB_PASSWORD", pg.password()), pg);
  }

  /** One effect row per application; fails for "m2" while broken, refuses "poison" always. */
  static final InboxHandler HANDLER = (c, m) -> {
    if (m.id().equals("poison")) {
      throw new UnprocessableMessageException("poison pill \u001b[2J<script>alert(1)</script>");
    }
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO test_effect (message_id) VALUES (?)")) {
      ps.setString(1, m.id());
      ps.executeUpdate();
    }
    if (m.id().equals("m2") && broken.get()) {
      throw new IllegalStateException("downstream rejects m2");
    }
  };

  @BeforeAll
  void database() throws Exception {
    broken.set(true);
    db = open();
    cli = new Cli(db.env());
    assertThat(cli.run("migrate").exitCode()).isZero();
    store = JdbcInboxStore.of(JdbcStore.builder(db.dataSource()).build());
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE test_effect (message_id varchar(255) NOT NULL)");
    }
  }

  @AfterAll
  void drop() throws Exception {
    if (db != null) {
      db.owner().close();
    }
  }

  private InboxConsumer consumer(ListSource source) {
    InboxConsumer c = InboxConsumer.builder(source).inbox(Inbox.builder(store, "payments").build(), db.dataSource())
        .handler(HANDLER).replayInterval(Duration.ofMillis(100))
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).backoff(Duration.ZERO, Duration.ofMillis(5)).build())
        .build();
    c.start();
    return c;
  }

  private long effects(String messageId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM test_effect WHERE message_id = ?")) {
      ps.setString(1, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static InboxMessage msg(String id) {
    return new InboxMessage(id, "OrderCreated", 1, "/orders", "Order", "o-" + id, 1,
        "{\"note\":\"<script>x</script>\"}", Map.of(), null, null, null, null, "test@" + id);
  }

  private long idOf(String messageId) {
    Cli.Result r = cli.run("parked", "list", "--state", "PARKED,REPLAYING,REPLAYED,DISCARDED", "--json");
    for (JsonNode n : r.json()) {
      if (n.get("messageId").asText().equals(messageId)) {
        return n.get("id").asLong();
      }
    }
    throw new AssertionError("not parked: " + messageId + "\n" + r);
  }

  @Test
  void listShowReplayDiscardWithTheirErrorsAndExitCodes() throws Exception {
    ListSource source = ListSource.of(msg("m1"), msg("m2"), msg("poison"));
    try (InboxConsumer consumer = consumer(source)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (source.settled() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(source.settled()).isEqualTo(3);

      // list: text with control characters visible, JSON with everything but payloads
      Cli.Result list = cli.run("parked", "list");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out()).contains("m2", "poison", "2 message(s).").contains("\\x1b[2J").doesNotContain("\u001b");
      JsonNode json = cli.run("parked", "list", "--consumer", "payments", "--json").json();
      assertThat(json).hasSize(2);
      assertThat(json.get(0).get("messageId").asText()).isEqualTo("m2");
      assertThat(json.get(0).get("state").asText()).isEqualTo("PARKED");
      assertThat(json.get(0).has("payload")).isFalse();
      assertThat(cli.run("parked", "list", "--reason", "DOWNSTREAM", "--json").json()).hasSize(1);
      assertThat(cli.run("parked", "list", "--older-than", "1h", "--json").json()).isEmpty();
      assertThat(cli.run("parked", "list", "--fail-if-any").exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);

      // acceptance 5: an invalid duration, a bad limit — usage errors naming the option
      Cli.Result badAge = cli.run("parked", "list", "--older-than", "5 parsecs");
      assertThat(badAge.exitCode()).as(badAge.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(badAge.err()).contains("--older-than");
      Cli.Result badLimit = cli.run("parked", "list", "--limit", "0");
      assertThat(badLimit.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(badLimit.err()).contains("--limit must be within [1, 10000], was 0");
      assertThat(cli.run("parked", "discard").exitCode()).isEqualTo(ExitCodes.USAGE);

      // show: the payload only with --payload
      long m2 = idOf("m2");
      JsonNode shown = cli.run("parked", "show", String.valueOf(m2), "--json").json();
      assertThat(shown.has("payload")).isFalse();
      assertThat(shown.get("payloadStored").asBoolean()).isTrue();
      assertThat(cli.run("parked", "show", String.valueOf(m2), "--payload", "--json").json().get("payload").asText())
          .isEqualTo("{\"note\":\"<script>x</script>\"}");
      Cli.Result unknown = cli.run("parked", "show", "999999");
      assertThat(unknown.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(unknown.err()).contains("no parked message with id 999999");
      Cli.Result unknownReplay = cli.run("parked", "replay", "999999");
      assertThat(unknownReplay.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(unknownReplay.err()).contains("no parked message with id 999999");

      // acceptance 2: fixed handler, replay applies once
      assertThat(effects("m2")).isZero();
      broken.set(false);
      Cli.Result replay = cli.run("parked", "replay", String.valueOf(m2), "--by", "alice", "--json");
      assertThat(replay.exitCode()).as(replay.toString()).isZero();
      assertThat(replay.json().get("state").asText()).isEqualTo("REPLAYED");
      assertThat(replay.json().get("handlerRan").asBoolean()).isTrue();
      assertThat(effects("m2")).isEqualTo(1);
      String before = cli.run("parked", "show", String.valueOf(m2), "--json").out();
      Cli.Result again = cli.run("parked", "replay", String.valueOf(m2));
      assertThat(again.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(again.err()).contains("was already replayed; nothing changed");
      Cli.Result discardReplayed = cli.run("parked", "discard", String.valueOf(m2));
      assertThat(discardReplayed.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(discardReplayed.err()).contains("was already replayed");
      Thread.sleep(300);
      assertThat(cli.run("parked", "show", String.valueOf(m2), "--json").out()).isEqualTo(before);
      assertThat(effects("m2")).isEqualTo(1);

      // a replay whose handler still fails: parked again, exit 1
      long poison = idOf("poison");
      Cli.Result failed = cli.run("parked", "replay", String.valueOf(poison));
      assertThat(failed.exitCode()).as(failed.toString()).isEqualTo(ExitCodes.CHECK_FAILED);
      assertThat(failed.out()).contains("failed; it is parked again").contains("\\x1b[2J");
    }
    // no consumer running: the replay waits, says so, and the request stays
    long poison = idOf("poison");
    Cli.Result nobody = cli.run("parked", "replay", String.valueOf(poison), "--timeout", "1s");
    assertThat(nobody.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
    assertThat(nobody.out()).contains("no consumer picked it up").contains("payments");

    // discard, with its audit record
    Cli.Result discard = cli.run("parked", "discard", String.valueOf(poison), "--by", "ops-bob");
    assertThat(discard.exitCode()).as(discard.toString()).isZero();
    JsonNode audit = cli.run("parked", "show", String.valueOf(poison), "--json").json().get("audit");
    JsonNode last = audit.get(audit.size() - 1);
    assertThat(last.get("action").asText()).isEqualTo("DISCARDED");
    assertThat(last.get("actor").asText()).isEqualTo("ops-bob");
    assertThat(last.get("at").asText()).isNotBlank();
    Cli.Result twice = cli.run("parked", "discard", String.valueOf(poison));
    assertThat(twice.exitCode()).isEqualTo(ExitCodes.CHECK_FAILED);
    assertThat(twice.err()).contains("was already discarded");
    assertThat(cli.run("parked", "list", "--json").json()).isEmpty();
  }
}
