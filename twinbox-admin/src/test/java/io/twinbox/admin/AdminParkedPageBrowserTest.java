package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.RetryPolicy;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.testkit.ListSource;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Acceptance 4 of issue 17 in headless Chromium, for parked inbox messages: a wrong token is turned
 * away; the read token sees the parked messages, their reasons and headers but no Replay, Discard
 * or payload button; once the handler is fixed the admin token replays one — the running consumer
 * applies it once (effect count 1) and the page shows it REPLAYED — and discards another after
 * confirming, and sees a payload only after clicking for it; payloads, reasons and aggregate ids
 * holding {@code <script>} are shown as text.
 */
class AdminParkedPageBrowserTest {
  private static final String READ = "read-parkedpage-canary-2d4f6a8c0e-9b1d3f5a7c";
  private static final String ADMIN = "admin-parkedpage-canary-8e0a2c4d6f-1b3d5f7a9c";
  private static final String PAYLOAD = "{\"note\":\"<script>window.pwned=1</script><img src=x id=xss-payload>\"}";
  private static final String REASON = "card declined <script>document.title='pwned'</script>";
  private static final String AGGREGATE = "pay-<b id=xss-aggregate>1</b>";
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

  private static long idOf(String messageId) throws Exception {
    return fx.count("SELECT id FROM twinbox_inbox_parked WHERE message_id = '" + messageId + "'");
  }

  @Test
  void readSeesParkedWithoutButtonsAdminReplaysDiscardsAndSeesThePayloadOnlyOnAClick() throws Exception {
    fx.execute("CREATE TABLE IF NOT EXISTS effect (message_id varchar(255) NOT NULL)");
    AtomicBoolean broken = new AtomicBoolean(true);
    ListSource source = ListSource.of(OutboxFixture.message("m-1", AGGREGATE, PAYLOAD),
        OutboxFixture.message("m-2", "pay-2", "{\"n\":2}"));
    List<String> audit = new CopyOnWriteArrayList<>();
    WebDriver browser = null;
    try (InboxConsumer consumer = InboxConsumer.builder(source)
            .inbox(Inbox.builder(JdbcInboxStore.of(fx.store), "payments").build(), fx.db.dataSource())
            .handler((c, m) -> {
              try (PreparedStatement ps = c.prepareStatement("INSERT INTO effect (message_id) VALUES (?)")) {
                ps.setString(1, m.id());
                ps.executeUpdate();
              }
              if (broken.get()) {
                throw new IllegalStateException(REASON); // rolls the effect back
              }
            })
            .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).replayInterval(Duration.ofMillis(100)).build();
        AdminServer server = AdminServer.builder(fx.store).port(0).readToken(READ).adminToken(ADMIN)
        .auditLog(audit::add).build().start()) {
      consumer.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> source.parked() == 2);
      long m1 = idOf("m-1");
      long m2 = idOf("m-2");
      String base = "http://127.0.0.1:" + server.port() + "/";
      browser = Browser.chromium();
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
      browser.get(base);
      Browser.signIn(browser, wait, "not-the-token-" + System.nanoTime());
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "not accepted"));

      // Read token: both parked messages, reasons and headers, no mutation and no payload button.
      Browser.signIn(browser, wait, READ);
      By row1 = By.cssSelector("#parked-list tr[data-id='" + m1 + "']");
      WebElement r1 = wait.until(ExpectedConditions.visibilityOfElementLocated(row1));
      assertThat(r1.getText()).contains("payments", "m-1", "Payment / " + AGGREGATE, REASON, "PARKED");
      assertThat(browser.findElement(By.id("parked-summary")).getText()).contains("payments: 2 parked, 0 replaying");
      assertThat(browser.findElements(By.cssSelector("#parked-list button.replay, #parked-list button.discard")))
          .isEmpty();
      r1.findElement(By.cssSelector("button.show")).click();
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("parked-detail")));
      assertThat(browser.findElement(By.id("parked-headers")).getText()).contains("tenant", "t-1");
      assertThat(browser.findElement(By.id("parked-fields")).getText()).contains(REASON, "corr-m-1");
      assertThat(browser.findElement(By.id("parked-show-payload")).isDisplayed()).isFalse();
      assertThat(browser.getPageSource()).doesNotContain("xss-payload");
      assertEscaped(browser);
      Browser.screenshot(browser, "admin-parked-read.png");

      // The handler is fixed. Admin token: replay one, discard the other after confirming.
      broken.set(false);
      browser.findElement(By.id("sign-out")).click();
      Browser.signIn(browser, wait, ADMIN);
      wait.until(ExpectedConditions.textToBe(By.id("role"), "admin"));
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(
          "#parked-list tr[data-id='" + m1 + "'] button.replay"))).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
          "Replay of parked message " + m1 + " requested (REPLAYING)"));
      await().atMost(Duration.ofSeconds(20)).until(() ->
          fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE id = " + m1 + " AND state = 'REPLAYED'") == 1);
      assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = 'm-1'")).as("applied once").isEqualTo(1);
      browser.findElement(By.id("refresh")).click();
      wait.until(ExpectedConditions.invisibilityOfElementLocated(row1)); // no longer open
      browser.findElement(By.cssSelector("#parked-list tr[data-id='" + m2 + "'] button.discard")).click();
      Alert confirm = wait.until(ExpectedConditions.alertIsPresent());
      assertThat(confirm.getText()).isEqualTo("Discard parked message " + m2 + " (m-2)? It will never be applied.");
      confirm.accept();
      wait.until(ExpectedConditions.textToBe(By.id("message"), "Discarded parked message " + m2 + "."));
      wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("#parked-list tr[data-id='" + m2 + "']")));
      assertThat(fx.count("SELECT count(*) FROM twinbox_inbox_parked WHERE id = " + m2 + " AND state = 'DISCARDED'"))
          .isEqualTo(1);

      // Every state: the replayed one, its outcome in the audit trail; the payload only after a click.
      new Select(browser.findElement(By.id("k-state"))).selectByValue("all");
      browser.findElement(By.cssSelector("#parked-filter button[type=submit]")).click();
      wait.until(ExpectedConditions.attributeToBe(row1, "data-state", "REPLAYED"));
      browser.findElement(By.cssSelector("#parked-list tr[data-id='" + m1 + "'] button.show")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("parked-audit"), "REPLAYED by consumer:payments"));
      assertThat(browser.findElement(By.id("parked-audit")).getText()).contains("REPLAY_REQUESTED by admin-page@127.0.0.1");
      assertThat(browser.findElements(By.cssSelector("#parked-list tr[data-id='" + m1 + "'] button.replay")))
          .as("a replayed message cannot be replayed again").isEmpty();
      assertThat(browser.findElement(By.id("parked-payload")).isDisplayed()).isFalse();
      browser.findElement(By.id("parked-show-payload")).click();
      wait.until(ExpectedConditions.textToBe(By.id("parked-payload"), PAYLOAD));
      assertEscaped(browser);
      Browser.screenshot(browser, "admin-parked-admin.png");
      browser.findElement(By.id("sign-out")).click();
      assertThat(browser.findElement(By.id("parked-payload")).getAttribute("textContent"))
          .as("signing out leaves no payload in the page").isEmpty();

      assertThat(audit).containsExactly("refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
          "action=replay parked=" + m1 + " state=REPLAYING role=admin remote=127.0.0.1",
          "action=discard parked=" + m2 + " state=DISCARDED role=admin remote=127.0.0.1",
          "action=show-payload parked=" + m1 + " role=admin remote=127.0.0.1");
      assertThat(fx.count("SELECT count(*) FROM effect")).as("m-2 was discarded, never applied").isEqualTo(1);
    } finally {
      if (browser != null) {
        browser.quit();
      }
    }
  }

  /** The {@code <script>} texts stayed text: no element was made of them, none ran. */
  private static void assertEscaped(WebDriver browser) {
    assertThat(browser.getTitle()).isEqualTo("Twinbox outbox");
    assertThat(browser.findElements(By.tagName("script"))).hasSize(3);
    assertThat(browser.findElements(By.id("xss-payload"))).isEmpty();
    assertThat(browser.findElements(By.id("xss-aggregate"))).isEmpty();
    assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
  }
}
