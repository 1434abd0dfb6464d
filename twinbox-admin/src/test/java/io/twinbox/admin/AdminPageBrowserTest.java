package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Health;
import io.twinbox.Relay;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page in a real browser (Debian's headless Chromium): sign in with the admin token, see the
 * FAILED event the relay produced, press Retry, watch the relay publish it; a read-only token sees
 * no buttons; a wrong token is turned away. Saves screenshots under {@code target/}.
 */
class AdminPageBrowserTest {
  private static final String READ = "read-page-canary-51c2e9a0d4-7d1f0a9b3c";
  private static final String ADMIN = "admin-page-canary-8b7e3f1a62-2e4c6a8d0f";

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
  void signInSeeTheFailedEventRetryItAndWatchItPublish() throws Exception {
    fx.rejectedTypes.add("PaymentCaptured");
    UUID poison = fx.write("PaymentCaptured", "Payment", "pay-4711");
    UUID behind = fx.write("PaymentRefunded", "Payment", "pay-4711");
    UUID fine = fx.write("OrderPlaced", "Order", "ord-1");
    List<String> audit = new CopyOnWriteArrayList<>();
    WebDriver browser = null;
    try (Relay relay = fx.relay();
        AdminServer server = AdminServer.builder(fx.store).port(0).relayStats(relay::stats)
            .health(new Health(fx.store, Duration.ofMinutes(1)))
            .readToken(READ).adminToken(ADMIN).auditLog(audit::add).build().start()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(fine)
          && fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      String base = "http://127.0.0.1:" + server.port() + "/";
      browser = Browser.chromium();
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));

      // A wrong token is turned away with a message.
      browser.get(base);
      Browser.signIn(browser, wait, "wrong-token");
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "not accepted"));
      assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();

      // The admin token: the overview and the FAILED event with its buttons.
      Browser.signIn(browser, wait, ADMIN);
      By row = By.cssSelector("#events tr[data-id='" + poison + "']");
      WebElement failedRow = wait.until(ExpectedConditions.visibilityOfElementLocated(row));
      assertThat(failedRow.getText()).contains("FAILED", "PaymentCaptured", "Payment / pay-4711", "no such topic");
      assertThat(browser.findElement(By.id("failed")).getText()).isEqualTo("1");
      assertThat(browser.findElement(By.id("pending")).getText()).isEqualTo("1"); // held behind it
      assertThat(browser.findElement(By.id("held")).getText()).isEqualTo("1");
      assertThat(browser.findElement(By.id("role")).getText()).isEqualTo("admin");
      assertThat(browser.findElement(By.cssSelector("#leases tbody")).getText()).contains(relay.nodeId());
      Browser.screenshot(browser, "admin-page.png");

      // The cause is fixed; Retry publishes the event and then the one held behind it.
      fx.rejectedTypes.clear();
      failedRow.findElement(By.cssSelector("button.retry")).click();
      wait.until(ExpectedConditions.textToBe(By.id("message"), "Retried 1 event."));
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(poison) && fx.published(behind));
      browser.findElement(By.id("refresh")).click();
      wait.until(ExpectedConditions.textToBe(By.id("failed"), "0"));
      wait.until(ExpectedConditions.invisibilityOfElementLocated(row));
      assertThat(browser.findElement(By.id("events-empty")).isDisplayed()).isTrue();
      Browser.screenshot(browser, "admin-page-after-retry.png");
      // The wrong token's first read (the status; the views wait for it) was refused and audited.
      assertThat(audit).containsExactly("refused=401 path=\"/api/status\" role=none remote=127.0.0.1",
          "action=retry selector=id:" + poison + " affected=1 role=admin remote=127.0.0.1");

      // The token stays in the tab's session storage only, and is never rendered into the page.
      assertThat(browser.getPageSource()).doesNotContain(ADMIN);

      // Read-only: the same page without any mutation button.
      browser.findElement(By.id("sign-out")).click();
      fx.rejectedTypes.add("PaymentCaptured");
      UUID again = fx.write("PaymentCaptured", "Payment", "pay-4712");
      await().atMost(Duration.ofSeconds(30)).until(() ->
          fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      Browser.signIn(browser, wait, READ);
      WebElement readRow = wait.until(ExpectedConditions.visibilityOfElementLocated(
          By.cssSelector("#events tr[data-id='" + again + "']")));
      assertThat(browser.findElement(By.id("role")).getText()).isEqualTo("read-only");
      assertThat(readRow.findElements(By.cssSelector("button.retry"))).allMatch(b -> !b.isDisplayed());
      assertThat(browser.findElement(By.id("retry-all")).isDisplayed()).isFalse();
    } finally {
      if (browser != null) {
        browser.quit();
      }
    }
  }
}
