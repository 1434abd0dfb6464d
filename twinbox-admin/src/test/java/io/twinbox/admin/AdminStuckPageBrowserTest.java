package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import io.twinbox.spi.PublishOutcome;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Acceptance 4 of issue 17 in headless Chromium, for what is stuck in the outbox: the read token
 * sees the held aggregate and the pending event behind it but no button; a page on another origin
 * that forges a POST is refused and changes nothing; the admin token purges the PUBLISHED rows in
 * batches with a confirmation and a progress bar, from the keyboard; reasons and aggregate ids
 * holding {@code <script>} are shown as text.
 */
class AdminStuckPageBrowserTest {
  private static final String READ = "read-stuckpage-canary-5a7c9e1b3d-2f4a6c8e0b";
  private static final String ADMIN = "admin-stuckpage-canary-7e9a1c3b5d-4f6a8c0e2b";
  private static final String XSS_REASON = "<script>document.title='pwned'</script><img src=x id=xss-reason>";
  private static final String XSS_AGGREGATE = "ord-<script>window.pwned=1</script>";
  private static OutboxFixture fx;

  @BeforeAll
  static void setUp() {
    Browser.assumeInstalled();
    fx = new OutboxFixture();
  }

  @AfterAll
  static void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  void readSeesHeldAndPendingWithoutButtonsForgedPostsAreRefusedAdminPurgesWithProgress() throws Exception {
    fx.transport.failWhen(m -> m.type().equals("Xss"), PublishOutcome.rejected(XSS_REASON));
    UUID poison = fx.write("Xss", "Order", XSS_AGGREGATE);
    UUID behind = fx.write("OrderShipped", "Order", XSS_AGGREGATE);
    for (int i = 0; i < 12; i++) {
      fx.write("OrderPlaced", "Order", "pub-" + i);
    }
    List<String> audit = new CopyOnWriteArrayList<>();
    WebDriver browser = null;
    HttpServer evil = null;
    try (Relay relay = fx.relay(CompletionMode.MARK);
        AdminServer server = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN)
            .auditLog(audit::add).build().start()) {
      await().atMost(Duration.ofSeconds(30)).until(() ->
          fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'") == 12
          && fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      String base = "http://127.0.0.1:" + server.port() + "/";
      browser = Browser.chromium();
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));

      // A wrong token: 401, the page stays on the sign-in form.
      browser.get(base);
      Browser.signIn(browser, wait, "wrong-token-" + UUID.randomUUID());
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "not accepted"));
      assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();

      // Read token: the held aggregate, why and by what, and the pending event behind it; no buttons.
      Browser.signIn(browser, wait, READ);
      WebElement held = wait.until(ExpectedConditions.visibilityOfElementLocated(
          By.cssSelector("#held-list tr[data-id='" + poison + "']")));
      assertThat(held.getText()).contains("Order / " + XSS_AGGREGATE, "FAILED", "Xss v1", XSS_REASON);
      WebElement pendingRow = wait.until(ExpectedConditions.visibilityOfElementLocated(
          By.cssSelector("#pending-list tr[data-id='" + behind + "']")));
      assertThat(pendingRow.getText()).contains("OrderShipped v1", XSS_AGGREGATE);
      assertThat(browser.findElement(By.id("role")).getText()).isEqualTo("read-only");
      assertThat(held.findElements(By.tagName("button"))).allMatch(b -> !b.isDisplayed());
      assertThat(browser.findElement(By.id("purge-start")).isDisplayed()).isFalse();
      assertThat(browser.findElements(By.cssSelector("button")).stream().filter(WebElement::isDisplayed)
          .map(WebElement::getText)).as("the read token's buttons only read")
          .containsOnly("Refresh", "Sign out", "Search", "Clear", "First page", "Next page", "Count");
      setField(browser, "purge-age", "1ms");
      browser.findElement(By.id("purge-count-button")).click();
      wait.until(ExpectedConditions.textToBe(By.id("purge-count"), "12 published events are older than 1ms."));
      assertEscaped(browser);
      Browser.screenshot(browser, "admin-stuck-read.png");

      // Another origin forges a purge: a form POST (no token can ride along) and a fetch (stopped
      // at its CORS preflight). Both refused, nothing deleted.
      evil = forger(server.port());
      browser.findElement(By.id("sign-out")).click();
      String apiUrl = "http://127.0.0.1:" + server.port() + "/api/actions";
      browser.get("http://localhost:" + evil.getAddress().getPort() + "/form");
      wait.until(d -> d.getCurrentUrl().equals(apiUrl));
      assertThat(browser.findElement(By.tagName("body")).getText()).contains("a valid token is required");
      browser.get("http://localhost:" + evil.getAddress().getPort() + "/fetch");
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("outcome"), "refused:"));
      assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'")).isEqualTo(12);
      assertThat(audit).noneMatch(l -> l.startsWith("action="));
      assertThat(audit).contains("refused=401 path=\"/api/actions\" role=none remote=127.0.0.1");

      // Admin token: the purge, asked to confirm, from the keyboard, in batches of 5 with progress.
      browser.get(base);
      Browser.signIn(browser, wait, ADMIN);
      wait.until(ExpectedConditions.textToBe(By.id("role"), "admin"));
      assertThat(browser.findElement(By.cssSelector("#held-list tr[data-id='" + poison + "'] button.retry"))
          .isDisplayed()).isTrue();
      setField(browser, "purge-age", "1ms");
      setField(browser, "purge-batch", "5");
      WebElement purge = browser.findElement(By.id("purge-start"));
      ((JavascriptExecutor) browser).executeScript("arguments[0].focus()", purge);
      purge.sendKeys(Keys.ENTER);
      Alert confirm = wait.until(ExpectedConditions.alertIsPresent());
      assertThat(confirm.getText()).isEqualTo("Delete 12 published events older than 1ms? They cannot be restored.");
      confirm.accept();
      wait.until(ExpectedConditions.textToBe(By.id("message"), "Purged 12 published events."));
      assertThat(browser.findElement(By.id("purge-status")).getText()).isEqualTo("Deleted 12 of 12");
      assertThat(browser.findElement(By.id("purge-progress")).getAttribute("value")).isEqualTo("12");
      assertThat(browser.findElement(By.id("purge-progress")).getAttribute("max")).isEqualTo("12");
      wait.until(ExpectedConditions.textToBe(By.id("purge-count"), "0 published events are older than 1ms."));
      Browser.screenshot(browser, "admin-stuck-purged.png");
      assertThat(fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'PUBLISHED'")).isZero();
      assertThat(fx.count("SELECT count(*) FROM twinbox_outbox")).as("the held ones stay").isEqualTo(2);
      String batch = "action=purge selector=published-older-than:\"1ms\" batch=5 affected=";
      assertThat(audit.stream().filter(l -> l.startsWith("action="))).containsExactly(
          batch + "5 role=admin remote=127.0.0.1", batch + "5 role=admin remote=127.0.0.1",
          batch + "2 role=admin remote=127.0.0.1");
      assertEscaped(browser);
      assertThat(browser.getPageSource()).doesNotContain(ADMIN).doesNotContain(READ);
    } finally {
      if (browser != null) {
        browser.quit();
      }
      if (evil != null) {
        evil.stop(0);
      }
    }
  }

  private static void setField(WebDriver browser, String id, String value) {
    WebElement f = browser.findElement(By.id(id));
    f.clear();
    f.sendKeys(value);
  }

  /** The {@code <script>} texts stayed text: no element was made of them, none ran. */
  private static void assertEscaped(WebDriver browser) {
    assertThat(browser.getTitle()).isEqualTo("Twinbox outbox");
    assertThat(browser.findElements(By.tagName("script"))).hasSize(3); // admin.js, stuck.js, parked.js
    assertThat(browser.findElements(By.id("xss-reason"))).isEmpty();
    assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
  }

  /** A server on another origin whose pages try to make the admin API purge everything. */
  private static HttpServer forger(int adminPort) throws Exception {
    String api = "http://127.0.0.1:" + adminPort + "/api/actions";
    String form = "<!doctype html><form method=post enctype=text/plain action='" + api + "'>"
        + "<input name='{\"action\":\"purge\",\"olderThan\":\"1ms\",\"x\":\"' value='\"}'></form>"
        + "<script>document.forms[0].submit()</script>";
    String fetch = "<!doctype html><p id=outcome></p><script>fetch('" + api + "', {method: 'POST', credentials:"
        + " 'include', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({action: 'purge',"
        + " olderThan: '1ms'})}).then(r => outcome.textContent = 'answered: ' + r.status,"
        + " e => outcome.textContent = 'refused: ' + e)</script>";
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.createContext("/", x -> {
      byte[] body = (x.getRequestURI().getPath().equals("/form") ? form : fetch).getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    s.start();
    return s;
  }
}
