package io.twinbox.admin;

import io.twinbox.testkit.SelfSignedKeyStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Health;
import io.twinbox.OutboxStatus;
import io.twinbox.StoredEvent;
import io.twinbox.spi.OutboxAdminStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, the admin server's hardening: failed authentications audited and rate-limited on every
 * {@code /api/} path, tokens of at least 32 characters kept only as digests, the page and API
 * refused on a non-loopback address without TLS or an explicit opt-in, HTTPS from a key store, and
 * the {@code /health} verdict cached with one check at a time.
 */
class AdminHardeningTest {
  private static final String READ = "hardening-read-3f9c2a7e1b5d4c60a8e2";
  private static final String ADMIN = "hardening-admin-0c9e8d7b6a5f4e31b7d9";
  private static final String KEYSTORE_PASSWORD = "ks-canary-5b1e7f2c9a";

  private static OutboxFixture fx;
  private final List<String> audit = new CopyOnWriteArrayList<>();

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
  void clean() throws Exception {
    fx.reset();
  }

  @Test
  void failedAuthenticationsAreAuditedOnEveryApiPathAndLimitedPerAddress() {
    try (AdminServer server = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN)
        .health(new Health(fx.store, Duration.ofMinutes(1))).auditLog(audit::add).build().start()) {
      Http http = new Http(server.port());
      List<String> paths = List.of("/api/status", "/api/events", "/api/nothing");
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 10; i++) { // the default: 10 failures per address in a burst
        String path = paths.get(i % 3);
        Http.Answer a = http.get(path, i % 2 == 0 ? null : "wrong-token-" + i);
        assertThat(a.status()).as(path).isEqualTo(401);
        expected.add("refused=401 path=\"" + path + "\" role=none remote=127.0.0.1");
      }
      assertThat(audit).as("every failed authentication, on every /api/ path").containsExactlyElementsOf(expected);

      // Now even the right token is refused from this address, before it is looked at.
      Http.Answer limited = http.get("/api/status", READ);
      assertThat(limited.status()).isEqualTo(429);
      assertThat(limited.json().path("error").asText()).contains("too many failed authentications");
      assertThat(Long.parseLong(limited.raw().headers().firstValue("Retry-After").orElseThrow())).isPositive();
      assertThat(http.get("/api/events", ADMIN).status()).isEqualTo(429);
      assertThat(http.post("/api/actions", ADMIN, "{\"action\":\"retry\",\"all\":true}").status()).isEqualTo(429);
      assertThat(http.get("/health", null).status()).as("/health is not behind the limit").isEqualTo(200);
      assertThat(audit).hasSize(11);
      assertThat(audit.get(10)).startsWith("refused=429 path=\"/api/status\"").endsWith("role=none remote=127.0.0.1");
      assertThat(audit).as("the limited requests are audited once, not each").filteredOn(l -> l.contains("=429"))
          .hasSize(1);
      for (String answer : http.seen) {
        assertThat(answer).doesNotContain(READ).doesNotContain(ADMIN);
      }
    }
  }

  @Test
  void tokensShorterThan32CharactersAreRefusedNamingTheLimit() {
    assertThatThrownBy(() -> AdminServer.builder(fx.store).readToken("x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("readToken must be 32–1024 characters, was 1");
    assertThatThrownBy(() -> AdminServer.builder(fx.store).adminToken("a".repeat(31)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("adminToken must be 32–1024 characters, was 31");
    assertThat(AdminServer.builder(fx.store).adminToken("a".repeat(32)).build()).isNotNull();
  }

  @Test
  void thePageAndApiAreRefusedOnAllInterfacesWithoutTls() {
    assertThatThrownBy(() -> AdminServer.builder(fx.store).bindAddress("0.0.0.0").port(0).readToken(READ).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bindAddress 0.0.0.0 is not a loopback address")
        .hasMessageContaining("tls(").hasMessageContaining("allowPlaintextApi(true)");
    // Probes only (no token, so no page or API): any address will do.
    try (AdminServer probes = AdminServer.builder(fx.store).bindAddress("0.0.0.0").port(0)
        .health(new Health(fx.store, Duration.ofMinutes(1))).build().start()) {
      assertThat(new Http(probes.port()).get("/health", null).status()).isEqualTo(200);
    }
  }

  @Test
  void theServerKeepsOnlyDigestsOfItsTokens() {
    AdminServer.Builder b = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN);
    try (AdminServer server = b.build().start()) {
      // Before any request: a connection's buffers hold the header a client presented, as in
      // any server; what matters is what the configuration keeps for the server's lifetime.
      List<String> kept = ObjectGraph.texts(server);
      assertThat(kept).as("texts reachable from the server").hasSizeGreaterThan(10)
          .noneMatch(t -> t.contains(READ) || t.contains(ADMIN));
      assertThat(ObjectGraph.texts(b)).as("texts kept by the builder")
          .noneMatch(t -> t.contains(READ) || t.contains(ADMIN));
      Http http = new Http(server.port());
      assertThat(http.get("/api/status", READ).json().path("role").asText()).isEqualTo("read");
      assertThat(http.get("/api/status", ADMIN).json().path("role").asText()).isEqualTo("admin");
    }
  }

  @Test
  void onAllInterfacesTlsOrTheExplicitOptInServeTheApi(@TempDir Path dir) throws Exception {
    Path ks = SelfSignedKeyStore.create(dir, KEYSTORE_PASSWORD);
    try (AdminServer tls = AdminServer.builder(fx.store).bindAddress("0.0.0.0").port(0).readToken(READ)
        .tls(ks, KEYSTORE_PASSWORD).build().start()) {
      assertThat(tls.tls()).isTrue();
    }
    try (AdminServer behindProxy = AdminServer.builder(fx.store).bindAddress("0.0.0.0").port(0).readToken(READ)
        .allowPlaintextApi(true).build().start()) {
      assertThat(new Http(behindProxy.port()).get("/api/status", READ).status()).isEqualTo(200);
    }
  }

  @Test
  void servesHttpsFromTheKeyStore(@TempDir Path dir) throws Exception {
    Path ks = SelfSignedKeyStore.create(dir, KEYSTORE_PASSWORD);
    List<String> printed = new ArrayList<>();
    try (AdminServer server = AdminServer.builder(fx.store).port(0).readToken(READ)
        .health(new Health(fx.store, Duration.ofMinutes(1))).tls(ks, KEYSTORE_PASSWORD).build().start()) {
      HttpClient client = HttpClient.newBuilder().sslContext(SelfSignedKeyStore.trusting(ks, KEYSTORE_PASSWORD))
          .connectTimeout(Duration.ofSeconds(5)).build();
      String base = "https://127.0.0.1:" + server.port();
      HttpResponse<String> status = client.send(HttpRequest.newBuilder(URI.create(base + "/api/status"))
          .header("Authorization", "Bearer " + READ).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(status.statusCode()).isEqualTo(200);
      assertThat(status.body()).contains("\"role\":\"read\"");
      HttpResponse<String> health = client.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      printed.add(status.body());
      printed.add(health.body());
      // Plain HTTP to the TLS port gets no answer from the API.
      HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      int plainStatus;
      try {
        plainStatus = plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/status"))
            .header("Authorization", "Bearer " + READ).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode();
      } catch (IOException e) {
        plainStatus = -1;
      }
      assertThat(plainStatus).isNotEqualTo(200);
    }
    assertThat(printed).noneMatch(t -> t.contains(KEYSTORE_PASSWORD));
  }

  /**
   * A POST refused before its body is read (401, 403, 429) must not leave the body unread on a
   * connection the client will reuse: the next request on it would get no answer.
   */
  @Test
  void refusedPostsLeaveTheConnectionUsable(@TempDir Path dir) throws Exception {
    Path ks = SelfSignedKeyStore.create(dir, KEYSTORE_PASSWORD);
    try (AdminServer server = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN)
        .authFailureLimit(1_000, Duration.ofMinutes(1)).tls(ks, KEYSTORE_PASSWORD).build().start()) {
      HttpClient client = HttpClient.newBuilder().sslContext(SelfSignedKeyStore.trusting(ks, KEYSTORE_PASSWORD))
          .connectTimeout(Duration.ofSeconds(5)).build();
      String body = "{\"action\":\"retry\",\"all\":true}";
      for (int i = 0; i < 30; i++) {
        String token = i % 3 == 0 ? null : i % 3 == 1 ? READ : ADMIN;
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/api/actions"))
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
          r.header("Authorization", "Bearer " + token);
        }
        int status = client.send(r.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
        assertThat(status).as("request " + i).isEqualTo(token == null ? 401 : token.equals(READ) ? 403 : 200);
      }
    }
  }

  @Test
  void aBadKeyStoreFailsAtBuildNamingItButNotThePassword(@TempDir Path dir) throws Exception {
    Path ks = SelfSignedKeyStore.create(dir, KEYSTORE_PASSWORD);
    assertThatThrownBy(() -> AdminServer.builder(fx.store).tls(ks, "wrong-" + KEYSTORE_PASSWORD))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls keyStore")
        .hasMessageContaining("cannot be opened with the configured password").hasMessageNotContaining(KEYSTORE_PASSWORD);
    assertThatThrownBy(() -> AdminServer.builder(fx.store).tls(dir.resolve("missing.p12"), KEYSTORE_PASSWORD))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not exist");
  }

  @Test
  void oneHealthCheckServesEveryCallerWithinTheTtl() throws Exception {
    Counting store = new Counting(fx.store);
    try (AdminServer server = AdminServer.builder(store).port(0).health(new Health(store, Duration.ofMinutes(1)))
        .healthCacheTtl(Duration.ofMinutes(1)).build().start()) {
      HttpClient client = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
            .build(), HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> c : calls) {
        assertThat(c.get().statusCode()).isEqualTo(200);
        assertThat(c.get().body()).isEqualTo(calls.get(0).get().body());
      }
      assertThat(store.statusReads.get()).as("status reads for 50 /health calls").isEqualTo(1);
    }
    store.statusReads.set(0);
    try (AdminServer uncached = AdminServer.builder(store).port(0).health(new Health(store, Duration.ofMinutes(1)))
        .healthCacheTtl(Duration.ZERO).build().start()) {
      Http http = new Http(uncached.port());
      for (int i = 0; i < 3; i++) {
        assertThat(http.get("/health", null).status()).isEqualTo(200);
      }
      assertThat(store.statusReads.get()).as("TTL 0: one read per call").isEqualTo(3);
    }
  }

  /** The real store, counting its status reads. */
  private static final class Counting implements OutboxAdminStore {
    private final OutboxAdminStore store;
    final AtomicInteger statusReads = new AtomicInteger();

    Counting(OutboxAdminStore store) {
      this.store = store;
    }

    @Override
    public OutboxStatus status() {
      statusReads.incrementAndGet();
      return store.status();
    }

    @Override
    public List<StoredEvent> troubled(String type, String aggregateType, String aggregateId, int limit) {
      return store.troubled(type, aggregateType, aggregateId, limit);
    }

    @Override
    public int retry(EventSelector selector) {
      return store.retry(selector);
    }

    @Override
    public int skip(EventSelector selector) {
      return store.skip(selector);
    }

    @Override
    public int purgePublished(java.time.Duration age, int limit) {
      return store.purgePublished(age, limit);
    }
  }
}
