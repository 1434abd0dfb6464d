package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API's views of what is stuck, against a real PostgreSQL outbox: held aggregates and pending
 * events checked against the table, the purge of PUBLISHED rows in audited batches, and strict
 * input checks that change nothing.
 */
class AdminStuckApiTest {
  private static final String READ = "read-stuck-canary-3e8a1f0c7b-6d2e9a4c51";
  private static final String ADMIN = "admin-stuck-canary-9f1b7c3e2a-0d8e6b4a17";
  private static OutboxFixture fx;
  private final List<String> audit = new CopyOnWriteArrayList<>();
  private AdminServer server;
  private Http http;

  @BeforeAll
  static void database() {
    fx = new OutboxFixture();
  }

  @AfterAll
  static void drop() {
    if (fx != null) {
      fx.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    fx.reset();
    server = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN).auditLog(audit::add)
        .build().start();
    http = new Http(server.port());
  }

  @AfterEach
  void stop() {
    server.close();
    for (String answer : http.seen) {
      assertThat(answer).doesNotContain(READ).doesNotContain(ADMIN);
    }
  }

  @Test
  void heldAggregatesAndPendingEventsMatchTheTable() throws Exception {
    fx.rejectedTypes.add("Poison");
    UUID poison = fx.write("Poison", "Order", "a");
    UUID behind = fx.write("OrderCreated", "Order", "a");
    UUID poison2 = fx.write("Poison", "Invoice", "x");
    UUID fine = fx.write("OrderCreated", "Order", "b");
    try (Relay relay = fx.relay()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(fine)
          && fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 2);
    }
    List<UUID> waiting = new ArrayList<>(List.of(behind));
    for (int i = 0; i < 3; i++) {
      waiting.add(fx.write("OrderShipped", "Order", "c-" + i)); // no relay runs now: they stay pending
    }

    assertThat(http.get("/api/held", null).status()).isEqualTo(401);
    JsonNode held = http.get("/api/held", READ).json();
    assertThat(held.path("held")).hasSize(2).hasSize((int) fx.count("""
        SELECT count(DISTINCT (aggregate_type, aggregate_id)) FROM twinbox_outbox
         WHERE status = 'FAILED' OR (status = 'PENDING' AND attempts > 0)"""));
    JsonNode first = held.path("held").get(0);
    assertThat(first.path("aggregateType").asText()).isEqualTo("Order");
    assertThat(first.path("aggregateId").asText()).isEqualTo("a");
    assertThat(first.path("reason").asText()).isEqualTo("FAILED");
    assertThat(first.path("holding").path("id").asText()).isEqualTo(poison.toString());
    assertThat(first.path("holding").path("lastError").asText()).contains("no such topic");
    assertThat(first.path("holding").path("attempts").asInt()).isEqualTo((int) fx.count(
        "SELECT attempts FROM twinbox_outbox WHERE id = '" + poison + "'"));
    assertThat(first.path("since").asText()).isEqualTo(first.path("holding").path("createdAt").asText());
    assertThat(first.toString()).as("payloads are never shown").doesNotContain("payload-is-never-shown");
    assertThat(held.path("held").get(1).path("holding").path("id").asText()).isEqualTo(poison2.toString());
    assertThat(http.get("/api/held?aggregateType=Invoice", READ).json().path("held")).singleElement()
        .satisfies(h -> assertThat(h.path("aggregateId").asText()).isEqualTo("x"));

    // Pending, page by page: every PENDING row once, in position order.
    assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'")).isEqualTo(4);
    JsonNode page1 = http.get("/api/pending?limit=3", READ).json();
    assertThat(page1.path("events")).hasSize(3);
    assertThat(page1.path("next").asLong()).isEqualTo(page1.path("events").get(2).path("position").asLong());
    JsonNode page2 = http.get("/api/pending?limit=3&after=" + page1.path("next").asLong(), READ).json();
    assertThat(page2.path("events")).hasSize(1);
    assertThat(page2.path("next").isNull()).as("the last page").isTrue();
    List<String> ids = new ArrayList<>();
    page1.path("events").forEach(e -> ids.add(e.path("id").asText()));
    page2.path("events").forEach(e -> ids.add(e.path("id").asText()));
    assertThat(ids).containsExactlyElementsOf(waiting.stream().map(UUID::toString).toList());
    assertThat(http.get("/api/pending?type=OrderShipped&aggregateType=Order&aggregateId=c-1", READ).json()
        .path("events")).singleElement().satisfies(e -> assertThat(e.path("id").asText()).isEqualTo(waiting.get(2).toString()));
    assertThat(http.get("/api/pending?olderThan=1d", READ).json().path("events")).isEmpty();
    assertThat(http.get("/api/pending?olderThan=PT0S", READ).json().path("events")).hasSize(4);
    assertThat(audit).as("reads are not audited, the refused one is")
        .containsExactly("refused=401 path=\"/api/held\" role=none remote=127.0.0.1");
  }

  @Test
  void purgeDeletesPublishedRowsInBoundedAuditedBatches() throws Exception {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      ids.add(fx.write("OrderCreated", "Order", "p-" + i));
    }
    try (Relay relay = fx.relay(CompletionMode.MARK)) {
      await().atMost(Duration.ofSeconds(30)).until(() ->
          fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") == 25);
    }
    UUID pending = fx.write("OrderCreated", "Order", "stays");
    Thread.sleep(20);

    JsonNode preview = http.get("/api/purge?olderThan=10ms", READ).json();
    assertThat(preview.path("published").asLong()).isEqualTo(25);
    assertThat(http.get("/api/purge?olderThan=1d", READ).json().path("published").asLong()).isZero();

    String purge = "{\"action\":\"purge\",\"olderThan\":\"10ms\",\"batch\":10}";
    assertThat(http.post("/api/actions", READ, purge).status()).isEqualTo(403);
    assertThat(fx.count("SELECT count(*) FROM twinbox_outbox")).as("the read token changed nothing").isEqualTo(26);
    List<Integer> batches = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Http.Answer a = http.post("/api/actions", ADMIN, purge);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      batches.add(a.json().path("affected").asInt());
      assertThat(a.json().path("selector").path("batch").asInt()).isEqualTo(10);
    }
    assertThat(batches).containsExactly(10, 10, 5, 0);
    assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'")).isZero();
    assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE id = '" + pending + "'"))
        .as("a pending row is never purged").isEqualTo(1);
    assertThat(audit).containsExactly(
        "refused=403 path=\"/api/actions\" role=read remote=127.0.0.1",
        "action=purge selector=published-older-than:\"10ms\" batch=10 affected=10 role=admin remote=127.0.0.1",
        "action=purge selector=published-older-than:\"10ms\" batch=10 affected=10 role=admin remote=127.0.0.1",
        "action=purge selector=published-older-than:\"10ms\" batch=10 affected=5 role=admin remote=127.0.0.1",
        "action=purge selector=published-older-than:\"10ms\" batch=10 affected=0 role=admin remote=127.0.0.1");
  }

  @Test
  void badInputIsRefusedNamingTheFieldAndChangesNothing() throws Exception {
    fx.write("OrderCreated", "Order", "n-1");
    for (String age : new String[] {"7 weeks", "-1d", "0s", "soon", "3651d", "P1Y"}) {
      assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"purge\",\"olderThan\":\"" + age + "\"}"), "olderThan");
      assertBad(http.get("/api/purge?olderThan=" + age.replace(" ", "%20"), READ), "olderThan");
    }
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"purge\"}"), "olderThan");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"purge\",\"olderThan\":7}"), "olderThan");
    for (String batch : new String[] {"0", "10001", "\"many\"", "1.5", "-3"}) {
      assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"purge\",\"olderThan\":\"1d\",\"batch\":" + batch + "}"),
          "batch");
    }
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"purge\",\"olderThan\":\"1d\",\"all\":true}"), "body");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"all\":true,\"olderThan\":\"1d\"}"), "body");
    assertBad(http.get("/api/purge", READ), "olderThan");
    assertBad(http.get("/api/pending?olderThan=soon", READ), "olderThan");
    assertBad(http.get("/api/pending?olderThan=-5m", READ), "olderThan");
    assertBad(http.get("/api/pending?after=-1", READ), "after");
    assertBad(http.get("/api/pending?after=ten", READ), "after");
    assertBad(http.get("/api/pending?limit=1001", READ), "limit");
    assertBad(http.get("/api/pending?aggregateId=" + "i".repeat(256), READ), "aggregateId");
    assertBad(http.get("/api/held?limit=0", READ), "limit");
    assertBad(http.get("/api/held?aggregateType=" + "t".repeat(256), READ), "aggregateType");
    assertThat(http.post("/api/held", ADMIN, "{}").status()).isEqualTo(405);
    assertThat(http.post("/api/purge", ADMIN, "{\"olderThan\":\"1d\"}").status()).as("a purge is an action")
        .isEqualTo(405);
    assertThat(audit).as("nothing was changed").isEmpty();
    assertThat(fx.count("SELECT count(*) FROM twinbox_outbox")).isEqualTo(1);
  }

  private static void assertBad(Http.Answer a, String field) {
    assertThat(a.status()).as(a.body()).isEqualTo(400);
    assertThat(a.json().path("field").asText()).as(a.body()).isEqualTo(field);
    assertThat(a.json().path("error").asText()).startsWith(field + " ");
  }
}
