package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Parked inbox messages in the JSON API, against a real PostgreSQL inbox whose consumer parked
 * them: the list and one message checked against the table, the payload only to the admin token
 * on request, replay and discard with the token rules, their typed refusals (404/409, nothing
 * changed), an audit line per mutation and per payload shown, strict input.
 */
class AdminParkedApiTest {
  private static final String READ = "read-parked-canary-4b6d8f0a2c-1e3a5c7e9b";
  private static final String ADMIN = "admin-parked-canary-6c8e0a2b4d-3f5a7c9e1b";
  private static final String SECRET = "payload-canary-iban-DE89370400440532013000";
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
    fx.park("payments", "card declined <script>alert(1)</script>",
        OutboxFixture.message("m-1", "pay-1", "{\"iban\":\"" + SECRET + "\"}"),
        OutboxFixture.message("m-2", "pay-2", "{\"n\":2}"));
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
    for (String line : audit) {
      assertThat(line).doesNotContain(SECRET);
    }
  }

  private long idOf(String messageId) throws Exception {
    return fx.count("SELECT id FROM twinbox_inbox_parked WHERE message_id = '" + messageId + "'");
  }

  private String state(long id) throws Exception {
    return fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE id = " + id + " AND state = 'PARKED'") == 1
        ? "PARKED" : fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE id = " + id
            + " AND state = 'REPLAYING'") == 1 ? "REPLAYING" : "OTHER";
  }

  @Test
  void listShowReplayAndDiscardFollowTheTokenRulesAndAreAudited() throws Exception {
    long m1 = idOf("m-1");
    long m2 = idOf("m-2");
    assertThat(http.get("/api/parked", null).status()).isEqualTo(401);
    JsonNode list = http.get("/api/parked", READ).json();
    assertThat(list.path("available").asBoolean()).isTrue();
    assertThat(list.path("messages")).hasSize(2)
        .hasSize((int) fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE state = 'PARKED'"));
    JsonNode first = list.path("messages").get(0);
    assertThat(first.path("id").asLong()).isEqualTo(m1);
    assertThat(first.path("consumer").asText()).isEqualTo("payments");
    assertThat(first.path("messageId").asText()).isEqualTo("m-1");
    assertThat(first.path("reason").asText()).contains("card declined <script>alert(1)</script>");
    assertThat(first.path("attempts").asInt()).isEqualTo(1);
    assertThat(first.path("state").asText()).isEqualTo("PARKED");
    assertThat(first.has("payload")).isFalse();
    assertThat(list.toString()).doesNotContain(SECRET);
    assertThat(list.path("summary")).singleElement().satisfies(s -> {
      assertThat(s.path("consumer").asText()).isEqualTo("payments");
      assertThat(s.path("parked").asLong()).isEqualTo(2);
    });
    assertThat(http.get("/api/parked?consumer=shipping", READ).json().path("messages")).isEmpty();
    assertThat(http.get("/api/parked?reason=DECLINED&aggregateType=Payment&aggregateId=pay-2", READ).json()
        .path("messages")).singleElement().satisfies(m -> assertThat(m.path("id").asLong()).isEqualTo(m2));
    assertThat(http.get("/api/parked?olderThan=1d", READ).json().path("messages")).isEmpty();

    // One message: headers and reason to either token; the payload to the admin token, on request.
    JsonNode one = http.get("/api/parked/" + m1, READ).json();
    assertThat(one.path("message").path("headers").path("tenant").asText()).isEqualTo("t-1");
    assertThat(one.path("message").path("correlationId").asText()).isEqualTo("corr-m-1");
    assertThat(one.path("message").has("payload")).isFalse();
    assertThat(one.toString()).doesNotContain(SECRET);
    Http.Answer readPayload = http.get("/api/parked/" + m1 + "?payload=true", READ);
    assertThat(readPayload.status()).isEqualTo(403);
    assertThat(readPayload.body()).doesNotContain(SECRET);
    assertThat(http.get("/api/parked/" + m1 + "?payload=true", ADMIN).json().path("message").path("payload")
        .asText()).isEqualTo("{\"iban\":\"" + SECRET + "\"}");

    // Replay and discard: the admin token only; the database says what happened.
    String replay1 = "{\"action\":\"replay\",\"id\":" + m1 + "}";
    assertThat(http.post("/api/parked/actions", READ, replay1).status()).isEqualTo(403);
    assertThat(state(m1)).isEqualTo("PARKED");
    JsonNode replayed = http.post("/api/parked/actions", ADMIN, replay1).json();
    assertThat(replayed.path("message").path("state").asText()).isEqualTo("REPLAYING");
    assertThat(state(m1)).isEqualTo("REPLAYING");
    JsonNode trail = http.get("/api/parked/" + m1, READ).json().path("audit");
    assertThat(trail).singleElement().satisfies(a -> {
      assertThat(a.path("action").asText()).isEqualTo("REPLAY_REQUESTED");
      assertThat(a.path("actor").asText()).isEqualTo("admin-page@127.0.0.1");
    });
    JsonNode discarded = http.post("/api/parked/actions", ADMIN, "{\"action\":\"discard\",\"id\":" + m2 + "}").json();
    assertThat(discarded.path("message").path("state").asText()).isEqualTo("DISCARDED");
    assertThat(fx.count("SELECT count(*) FROM twinbox_inbox_parked_audit WHERE parked_id = " + m2
        + " AND action = 'DISCARDED' AND actor = 'admin-page@127.0.0.1'")).isEqualTo(1);
    assertThat(http.get("/api/parked", READ).json().path("messages")).as("open ones only").hasSize(1);
    assertThat(http.get("/api/parked?state=discarded", READ).json().path("messages")).singleElement()
        .satisfies(m -> assertThat(m.path("id").asLong()).isEqualTo(m2));

    // Refusals name the id and change nothing.
    assertRefused(http.post("/api/parked/actions", ADMIN, "{\"action\":\"discard\",\"id\":" + m2 + "}"), 409);
    assertRefused(http.post("/api/parked/actions", ADMIN, "{\"action\":\"replay\",\"id\":" + m2 + "}"), 409);
    assertRefused(http.post("/api/parked/actions", ADMIN, "{\"action\":\"replay\",\"id\":987654}"), 404);
    assertRefused(http.get("/api/parked/987654", READ), 404);
    assertThat(fx.count("SELECT count(*) FROM twinbox_inbox_parked_audit")).isEqualTo(2);

    assertThat(audit).containsExactly(
        "refused=401 path=\"/api/parked\" role=none remote=127.0.0.1",
        "refused=403 path=\"/api/parked/" + m1 + "\" role=read remote=127.0.0.1",
        "action=show-payload parked=" + m1 + " role=admin remote=127.0.0.1",
        "refused=403 path=\"/api/parked/actions\" role=read remote=127.0.0.1",
        "action=replay parked=" + m1 + " state=REPLAYING role=admin remote=127.0.0.1",
        "action=discard parked=" + m2 + " state=DISCARDED role=admin remote=127.0.0.1",
        "action=discard parked=" + m2 + " outcome=refused problem=ALREADY_DISCARDED role=admin remote=127.0.0.1",
        "action=replay parked=" + m2 + " outcome=refused problem=ALREADY_DISCARDED role=admin remote=127.0.0.1",
        "action=replay parked=987654 outcome=refused problem=NOT_FOUND role=admin remote=127.0.0.1");
  }

  @Test
  void badInputIsRefusedNamingTheFieldAndChangesNothing() throws Exception {
    long m1 = idOf("m-1");
    assertBad(http.get("/api/parked?olderThan=soon", READ), "olderThan");
    assertBad(http.get("/api/parked?olderThan=-1m", READ), "olderThan");
    assertBad(http.get("/api/parked?state=zombie", READ), "state");
    assertBad(http.get("/api/parked?aggregateId=pay-1", READ), "aggregateId");
    assertBad(http.get("/api/parked?limit=0", READ), "limit");
    assertBad(http.get("/api/parked?consumer=" + "c".repeat(256), READ), "consumer");
    assertBad(http.get("/api/parked/abc", READ), "id");
    assertBad(http.get("/api/parked/0", READ), "id");
    assertBad(http.get("/api/parked/" + m1 + "?payload=yes", ADMIN), "payload");
    for (String body : new String[] {"{\"action\":\"delete\",\"id\":1}", "{\"id\":1}"}) {
      assertBad(http.post("/api/parked/actions", ADMIN, body), "action");
    }
    for (String id : new String[] {"\"" + m1 + "\"", "-1", "0", "1.5", "null"}) {
      assertBad(http.post("/api/parked/actions", ADMIN, "{\"action\":\"replay\",\"id\":" + id + "}"), "id");
    }
    assertBad(http.post("/api/parked/actions", ADMIN, "{\"action\":\"replay\",\"id\":" + m1 + ",\"by\":\"x\"}"),
        "body");
    assertBad(http.post("/api/parked/actions", ADMIN, "replay it"), "body");
    assertThat(http.post("/api/parked/actions", ADMIN, "text/plain", "{\"action\":\"replay\",\"id\":" + m1 + "}")
        .status()).isEqualTo(415);
    assertThat(http.get("/api/parked/actions", ADMIN).status()).isEqualTo(405);
    assertThat(http.post("/api/parked", ADMIN, "{}").status()).isEqualTo(405);
    assertThat(audit).as("nothing was changed").isEmpty();
    assertThat(fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE state = 'PARKED'")).isEqualTo(2);
    assertThat(fx.count("SELECT count(*) FROM twinbox_inbox_parked_audit")).isZero();
  }

  private static void assertRefused(Http.Answer a, int status) {
    assertThat(a.status()).as(a.body()).isEqualTo(status);
    assertThat(a.json().path("field").asText()).isEqualTo("id");
    assertThat(a.json().path("error").asText()).contains("parked message");
  }

  private static void assertBad(Http.Answer a, String field) {
    assertThat(a.status()).as(a.body()).isEqualTo(400);
    assertThat(a.json().path("field").asText()).as(a.body()).isEqualTo(field);
    assertThat(a.json().path("error").asText()).startsWith(field + " ");
  }
}
