package io.twinbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Health;
import io.twinbox.Relay;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page in a real browser (Debian's headless Chromium): sign in with the admin token, see the
 * FAILED event the relay produced, press Retry, watch the relay publish it; a read-only token sees
 * no buttons; a wrong token is turned away. Saves screenshots under {@code target/}.
 */
class AdminPageBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final String READ = "read-page-canary-51c2e9a0d4";
  private static final String ADMIN = "admin-page-canary-8b7e3f1a62";

  private static OutboxFixture fx;

  @BeforeAll
  static void setUp() {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String why = "SKIPPED: the admin page browser test needs " + CHROMIUM + " and " + CHROMEDRIVER
          + " (Debian packages chromium and chromium-driver: apt-get install chromium chromium-driver)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(why.replaceFirst("SKIPPED", "MISSING (CI=true)"));
      }
      System.err.println(why);
      Assumptions.abort(why);
    }
    fx = new OutboxFixture();
  }

  @AfterAll
  static void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  private static WebDriver chromium() {
    // Both paths explicit: Selenium Manager then has nothing to look up or download.
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,900", "--lang=en-GB");
    return new ChromeDriver(service, options);
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
      browser = chromium();
      WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));

      // A wrong token is turned away with a message.
      browser.get(base);
      signIn(browser, wait, "wrong-token");
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "not accepted"));
      assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();

      // The admin token: the overview and the FAILED event with its buttons.
      signIn(browser, wait, ADMIN);
      By row = By.cssSelector("#events tr[data-id='" + poison + "']");
      WebElement failedRow = wait.until(ExpectedConditions.visibilityOfElementLocated(row));
      assertThat(failedRow.getText()).contains("FAILED", "PaymentCaptured", "Payment / pay-4711", "no such topic");
      assertThat(browser.findElement(By.id("failed")).getText()).isEqualTo("1");
      assertThat(browser.findElement(By.id("pending")).getText()).isEqualTo("1"); // held behind it
      assertThat(browser.findElement(By.id("held")).getText()).isEqualTo("1");
      assertThat(browser.findElement(By.id("role")).getText()).isEqualTo("admin");
      assertThat(browser.findElement(By.cssSelector("#leases tbody")).getText()).contains(relay.nodeId());
      screenshot(browser, "admin-page.png");

      // The cause is fixed; Retry publishes the event and then the one held behind it.
      fx.rejectedTypes.clear();
      failedRow.findElement(By.cssSelector("button.retry")).click();
      wait.until(ExpectedConditions.textToBe(By.id("message"), "Retried 1 event."));
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.published(poison) && fx.published(behind));
      browser.findElement(By.id("refresh")).click();
      wait.until(ExpectedConditions.textToBe(By.id("failed"), "0"));
      wait.until(ExpectedConditions.invisibilityOfElementLocated(row));
      assertThat(browser.findElement(By.id("events-empty")).isDisplayed()).isTrue();
      screenshot(browser, "admin-page-after-retry.png");
      assertThat(audit).containsExactly("action=retry selector=id:" + poison + " affected=1 role=admin remote=127.0.0.1");

      // The token stays in the tab's session storage only, and is never rendered into the page.
      assertThat(browser.getPageSource()).doesNotContain(ADMIN);

      // Read-only: the same page without any mutation button.
      browser.findElement(By.id("sign-out")).click();
      fx.rejectedTypes.add("PaymentCaptured");
      UUID again = fx.write("PaymentCaptured", "Payment", "pay-4712");
      await().atMost(Duration.ofSeconds(30)).until(() ->
          fx.count("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'") == 1);
      signIn(browser, wait, READ);
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

  private static void signIn(WebDriver browser, WebDriverWait wait, String token) {
    WebElement field = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
    field.clear();
    field.sendKeys(token);
    browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    File shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
    Path target = Path.of("target", name);
    Files.createDirectories(target.getParent());
    Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
  }
}
