package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.twinbox.Health;
import io.twinbox.Relay;
import io.twinbox.RelayStats;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.testkit.PostgresDatabase;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JSON API against a real PostgreSQL outbox: values checked against the table, the 401/403
 * rules, strict input checks, the audit trail, and that no token ever comes back out.
 */
class AdminApiTest {
  private static final String READ = "read-canary-7f3a9c1e5b2d4f60-93ab17c4e5";
  private static final String ADMIN = "admin-canary-0c9e8d7b6a5f4e31-5d02b8f6a1";

  private static OutboxFixture fx;
  /** Everything the JVM prints while the class runs (SLF4J Simple and Jetty log to stderr). */
  private static final ByteArrayOutputStream PRINTED = new ByteArrayOutputStream();
  private static PrintStream stdout;
  private static PrintStream stderr;
  private final List<String> audit = new CopyOnWriteArrayList<>();
  private AdminServer server;
  private Http http;

  @BeforeAll
  static void database() {
    stdout = System.out;
    stderr = System.err;
    System.setOut(new PrintStream(new Tee(stdout), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new Tee(stderr), true, StandardCharsets.UTF_8));
    fx = new OutboxFixture();
  }

  @AfterAll
  static void drop() {
    if (fx != null) {
      fx.close();
    }
    System.setOut(stdout);
    System.setErr(stderr);
    String printed;
    synchronized (PRINTED) {
      printed = PRINTED.toString(StandardCharsets.UTF_8);
    }
    assertThat(printed).as("the capture works").contains("admin server listening on http://127.0.0.1:");
    assertThat(printed).as("a failed request was logged").contains("admin request GET /api/status failed");
    assertThat(printed).as("no token in any log line").doesNotContain(READ).doesNotContain(ADMIN);
  }

  /** Writes to the original stream and to {@link #PRINTED}. */
  private static final class Tee extends OutputStream {
    private final OutputStream original;

    Tee(OutputStream original) {
      this.original = original;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      original.write(b);
      synchronized (PRINTED) {
        PRINTED.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      original.write(b, off, len);
      synchronized (PRINTED) {
        PRINTED.write(b, off, len);
      }
    }
  }

  @BeforeEach
  void start() throws Exception {
    fx.reset();
    server = AdminServer.builder(fx.store).port(0)
        .health(new Health(fx.store, Duration.ofMinutes(1)))
        .metrics(() -> "# TYPE twinbox_outbox_pending gauge\ntwinbox_outbox_pending 0.0\n")
        .readToken(READ).adminToken(ADMIN).auditLog(audit::add)
        .build().start();
    http = new Http(server.port());
  }

  @AfterEach
  void stop() {
    server.close();
    for (String answer : http.seen) {
      assertThat(answer).doesNotContain(READ).doesNotContain(ADMIN);
    }
    for (String line : audit) {
      assertThat(line).doesNotContain(READ).doesNotContain(ADMIN);
    }
  }

  @Test
  void healthAndMetricsNeedNoToken() throws Exception {
    Http.Answer metrics = http.get("/metrics", null);
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.raw().headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(metrics.body()).contains("twinbox_outbox_pending 0.0");

    Http.Answer up = http.get("/health", null);
    assertThat(up.status()).isEqualTo(200);
    assertThat(up.json().path("status").asText()).isEqualTo("UP");
    assertThat(up.json().path("outbox").path("pending").asLong()).isZero();

    fx.write("OrderCreated", "Order", "h-1");
    // pending, and no relay holds a lease: DOWN once the cached verdict (2 s) is renewed
    await().atMost(Duration.ofSeconds(20)).until(() -> http.get("/health", null).status() == 503);
    Http.Answer down = http.get("/health", null);
    assertThat(down.status()).isEqualTo(503);
    assertThat(down.json().path("status").asText()).isEqualTo("DOWN");
    assertThat(down.json().path("reasons").get(0).asText()).contains("no live relay holds a lease");
    assertThat(down.json().path("outbox").path("pending").asLong()).isEqualTo(fx.count(
        "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'")).isEqualTo(1);
    assertThat(http.post("/health", null, "{}").status()).isEqualTo(405);
  }

  @Test
  void tokensAreRequiredAndReadOnlyTokensCannotMutate() {
    String retryAll = "{\"action\":\"retry\",\"all\":true}";
    assertThat(http.get("/api/status", null).status()).isEqualTo(401);
    Http.Answer wrong = http.get("/api/status", "not-the-token");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"twinbox\"");
    assertThat(http.get("/api/status", READ + "x").status()).as("a longer token").isEqualTo(401);
    assertThat(http.get("/api/status", READ.substring(1)).status()).as("a shorter token").isEqualTo(401);
    assertThat(http.post("/api/actions", null, retryAll).status()).isEqualTo(401);
    assertThat(http.post("/api/actions", "nope", retryAll).status()).isEqualTo(401);

    Http.Answer read = http.get("/api/status", READ);
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().path("role").asText()).isEqualTo("read");
    assertThat(read.json().path("canMutate").asBoolean()).isFalse();
    assertThat(http.get("/api/events", READ).status()).isEqualTo(200);
    Http.Answer forbidden = http.post("/api/actions", READ, retryAll);
    assertThat(forbidden.status()).isEqualTo(403);
    assertThat(forbidden.json().path("error").asText()).contains("admin token");

    Http.Answer admin = http.post("/api/actions", ADMIN, retryAll);
    assertThat(admin.status()).isEqualTo(200);
    assertThat(admin.json().path("affected").asInt()).isZero();

    assertThat(audit).containsExactly(
        "refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
        "refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
        "refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
        "refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
        "refused=401 path=\"/api/actions\" role=none remote=127.0.0.1",
        "refused=401 path=\"/api/actions\" role=none remote=127.0.0.1",
        "refused=403 path=\"/api/actions\" role=read remote=127.0.0.1",
        "action=retry selector=all-failed affected=0 role=admin remote=127.0.0.1");
  }

  @Test
  void statusAndFailedEventsMatchTheTable() throws Exception {
    fx.rejectedTypes.add("Poison");
    UUID poison = fx.write("Poison", "Order", "a");
    UUID behind = fx.write("OrderCreated", "Order", "a");
    UUID other = fx.write("OrderCreated", "Order", "b");
    UUID poison2 = fx.write("Poison", "Invoice", "x");
    try (Relay relay = fx.relay()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(other)
          && fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 2);

      JsonNode s = http.get("/api/status", READ).json();
      assertThat(s.path("failed").asLong()).isEqualTo(2);
      assertThat(s.path("pending").asLong()).isEqualTo(1)
          .isEqualTo(fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'"));
      assertThat(s.path("heldAggregates").asLong()).isEqualTo(2);
      assertThat(s.path("oldestPendingAgeMillis").asLong()).isGreaterThanOrEqualTo(0);
      assertThat(s.path("unownedPartitions").asInt()).isZero();
      assertThat(s.path("leaseOwners")).hasSize(1);
      assertThat(s.path("leaseOwners").get(0).path("node").asText()).isEqualTo(relay.nodeId());
      assertThat(s.path("leaseOwners").get(0).path("partitions").asInt()).isEqualTo(64)
          .isEqualTo((int) fx.count("SELECT count(*) FROM twinbox_relay_lease WHERE owner = '" + relay.nodeId()
              + "' AND lease_until > now()"));
      assertThat(s.path("relay").isNull()).as("no relay stats configured").isTrue();

      JsonNode all = http.get("/api/events", READ).json();
      assertThat(all.path("events")).hasSize(2);
      JsonNode first = all.path("events").get(0);
      assertThat(first.path("id").asText()).isEqualTo(poison.toString());
      assertThat(first.path("status").asText()).isEqualTo("FAILED");
      assertThat(first.path("type").asText()).isEqualTo("Poison");
      assertThat(first.path("aggregateType").asText()).isEqualTo("Order");
      assertThat(first.path("aggregateId").asText()).isEqualTo("a");
      assertThat(first.path("attempts").asInt()).isEqualTo((int) fx.count(
          "SELECT attempts FROM twinbox_outbox WHERE id = '" + poison + "'"));
      assertThat(first.path("lastError").asText()).contains("no such topic");
      assertThat(first.toString()).as("payloads are never shown").doesNotContain("payload-is-never-shown");

      assertThat(http.get("/api/events?aggregateType=Invoice", READ).json().path("events"))
          .singleElement().satisfies(e -> assertThat(e.path("id").asText()).isEqualTo(poison2.toString()));
      assertThat(http.get("/api/events?aggregateType=Order&aggregateId=a&type=Poison", READ).json().path("events"))
          .singleElement().satisfies(e -> assertThat(e.path("id").asText()).isEqualTo(poison.toString()));
      assertThat(http.get("/api/events?type=OrderCreated", READ).json().path("events")).isEmpty();
      assertThat(http.get("/api/events?limit=1", READ).json().path("events")).hasSize(1);

      // Retry by id once the cause is gone: the event and the one held behind it are published.
      fx.rejectedTypes.clear();
      JsonNode retried = http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"id\":\"" + poison + "\"}").json();
      assertThat(retried.path("affected").asInt()).isEqualTo(1);
      assertThat(retried.path("selector").path("id").asText()).isEqualTo(poison.toString());
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(poison) && fx.published(behind));

      // Skip by aggregate: the row is gone without being published.
      JsonNode skipped = http.post("/api/actions", ADMIN,
          "{\"action\":\"skip\",\"aggregateType\":\"Invoice\",\"aggregateId\":\"x\"}").json();
      assertThat(skipped.path("affected").asInt()).isEqualTo(1);
      assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE id = '" + poison2 + "'")).isZero();
      assertThat(fx.published(poison2)).isFalse();
      await().atMost(Duration.ofSeconds(30)).until(() -> http.get("/api/status", READ).json().path("pending").asLong() == 0);
      assertThat(http.get("/api/status", READ).json().path("failed").asLong()).isZero();
    }
    assertThat(audit).containsExactly(
        "action=retry selector=id:" + poison + " affected=1 role=admin remote=127.0.0.1",
        "action=skip selector=aggregate:\"Invoice\"/\"x\" affected=1 role=admin remote=127.0.0.1");
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"id\":\"not-a-uuid\"}"), "id");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"id\":\"1-1-1-1-1\"}"), "id");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"delete\",\"all\":true}"), "action");
    assertBad(http.post("/api/actions", ADMIN, "{\"all\":true}"), "action");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"skip\"}"), "selector");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"skip\",\"all\":true,\"id\":\""
        + UUID.randomUUID() + "\"}"), "selector");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"skip\",\"aggregateType\":\"Order\"}"), "aggregateId");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"skip\",\"all\":\"yes\"}"), "all");
    assertBad(http.post("/api/actions", ADMIN, "{\"action\":\"skip\",\"all\":true,\"force\":1}"), "body");
    assertBad(http.post("/api/actions", ADMIN, "retry everything"), "body");
    assertBad(http.post("/api/actions", ADMIN, "[]"), "body");
    assertBad(http.get("/api/events?limit=0", READ), "limit");
    assertBad(http.get("/api/events?limit=ten", READ), "limit");
    assertBad(http.get("/api/events?type=" + "t".repeat(256), READ), "type");
    assertThat(http.post("/api/actions", ADMIN, "text/plain", "{\"action\":\"retry\",\"all\":true}").status())
        .isEqualTo(415);
    // The 413 must reach the client every time: a server that closes on an unread body resets the
    // connection and the client sees "no bytes" instead of the answer.
    for (int size : new int[] {20_000, 20_000, 20_000, 200_000, 900_000}) {
      assertThat(http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"aggregateType\":\""
          + "x".repeat(size) + "\"}").status()).as("%d bytes", size).isEqualTo(413);
    }
    Http.Answer get = http.get("/api/actions", ADMIN);
    assertThat(get.status()).isEqualTo(405);
    assertThat(get.raw().headers().firstValue("Allow")).hasValue("POST");
    assertThat(http.get("/api/nothing", READ).status()).isEqualTo(404);
    assertThat(audit).as("nothing was changed").isEmpty();
  }

  private static void assertBad(Http.Answer a, String field) {
    assertThat(a.status()).as(a.body()).isEqualTo(400);
    assertThat(a.json().path("field").asText()).isEqualTo(field);
    assertThat(a.json().path("error").asText()).startsWith(field + " ");
  }

  @Test
  void thePageIsServedWithItsScriptAndStyle() {
    Http.Answer page = http.get("/", null);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.raw().headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    assertThat(page.raw().headers().firstValue("Content-Security-Policy")).get().asString().contains("default-src 'none'");
    assertThat(page.body()).contains("admin.js").contains("admin.css");
    assertThat(http.get("/admin.js", null).status()).isEqualTo(200);
    assertThat(http.get("/admin.css", null).status()).isEqualTo(200);
    assertThat(http.get("/secret.txt", null).status()).isEqualTo(404);
  }

  @Test
  void withoutTokensThePageAndApiDoNotExist() {
    try (AdminServer bare = AdminServer.builder(fx.store).port(0).build().start()) {
      Http h = new Http(bare.port());
      assertThat(h.get("/", null).status()).isEqualTo(404);
      assertThat(h.get("/admin.js", null).status()).isEqualTo(404);
      assertThat(h.get("/api/status", null).status()).isEqualTo(404);
      assertThat(h.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"all\":true}").status()).isEqualTo(404);
      assertThat(h.get("/health", null).status()).as("not configured").isEqualTo(404);
      assertThat(h.get("/metrics", null).status()).as("not configured").isEqualTo(404);
    }
  }

  @Test
  void aTakenPortAndBadSettingsFailClearly() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      AdminServer s = AdminServer.builder(fx.store).port(taken.getLocalPort()).build();
      assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot bind the admin server to 127.0.0.1:" + taken.getLocalPort());
    }
    assertThatThrownBy(() -> AdminServer.builder(fx.store).port(65_536))
        .hasMessage("port must be between 0 and 65535, was 65536");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).port(-1)).hasMessageContaining("port");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).readToken("has space " + READ))
        .hasMessageContaining("readToken").hasMessageNotContaining(READ);
    assertThatThrownBy(() -> AdminServer.builder(fx.store).adminToken(""))
        .hasMessageContaining("adminToken");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).healthCacheTtl(Duration.ofMinutes(2)))
        .hasMessageContaining("healthCacheTtl");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).authFailureLimit(0, Duration.ofMinutes(1)))
        .hasMessageContaining("authFailureLimit");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).readToken(READ).adminToken(READ).build())
        .hasMessage("readToken and adminToken must differ");
  }

  @Test
  void aFailingStoreAnswersWithoutDetailsAndIsAudited() {
    try (PostgresDatabase empty = PostgresDatabase.create()) {
      JdbcStore unmigrated = JdbcStore.builder(empty.dataSource()).build(); // no tables: every read fails
      try (AdminServer broken = AdminServer.builder(unmigrated).port(0)
          .health(new Health(unmigrated, Duration.ofMinutes(1))).readToken(READ).adminToken(ADMIN)
          .auditLog(audit::add).build().start()) {
        Http h = new Http(broken.port());
        Http.Answer status = h.get("/api/status", READ);
        assertThat(status.status()).isEqualTo(500);
        assertThat(status.json().path("error").asText()).isEqualTo("internal error; see the server log");
        Http.Answer health = h.get("/health", null);
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json().path("reasons").get(0).asText()).startsWith("cannot read the outbox");
        assertThat(health.json().path("outbox").isNull()).isTrue();
        assertThat(h.post("/api/actions", ADMIN, "{\"action\":\"skip\",\"all\":true}").status()).isEqualTo(500);
        assertThat(audit).singleElement().asString()
            .startsWith("action=skip selector=all-failed outcome=error reason=\"")
            .endsWith(" role=admin remote=127.0.0.1");
        http.seen.addAll(h.seen);
      }
    }
  }

  @Test
  void throughputIsThePublishedRateOfTheLocalRelay() throws Exception {
    AtomicLong published = new AtomicLong(1_000);
    try (AdminServer s = AdminServer.builder(fx.store).port(0).readToken(READ)
        .relayStats(() -> new RelayStats(published.get(), 2, 1, 0, 0, 10, 64)).build().start()) {
      Http h = new Http(s.port());
      long before = System.nanoTime();
      JsonNode first = h.get("/api/status", READ).json().path("relay");
      assertThat(first.path("published").asLong()).isEqualTo(1_000);
      assertThat(first.path("dead").asLong()).isEqualTo(1);
      assertThat(first.path("publishedPerSecond").isNull()).as("one sample is no rate yet").isTrue();
      Thread.sleep(1_200);
      published.addAndGet(60);
      JsonNode second = h.get("/api/status", READ).json().path("relay");
      double elapsed = (System.nanoTime() - before) / 1e9;
      assertThat(second.path("published").asLong()).isEqualTo(1_060);
      assertThat(second.path("publishedPerSecond").asDouble())
          .isBetween(Math.floor(60 / elapsed * 100) / 100, 60 / 1.2);
      http.seen.addAll(h.seen);
    }
  }

  @Test
  void theDefaultAuditSinkIsTheAuditLogger() {
    try (AdminServer s = AdminServer.builder(fx.store).port(0).adminToken(ADMIN).build().start()) {
      Http h = new Http(s.port());
      assertThat(h.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"aggregateType\":\"Order\",\"aggregateId\":\"a b\\nforged=1\"}")
          .json().path("affected").asInt()).isZero();
      http.seen.addAll(h.seen);
    }
    String printed;
    synchronized (PRINTED) {
      printed = PRINTED.toString(StandardCharsets.UTF_8);
    }
    assertThat(printed).as("one line, the line break in the input escaped").contains(AdminServer.AUDIT_LOGGER
        + " - action=retry selector=aggregate:\"Order\"/\"a b\\nforged=1\" affected=0 role=admin remote=127.0.0.1");
  }
}
