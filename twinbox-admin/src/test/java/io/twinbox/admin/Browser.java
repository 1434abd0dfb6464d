package io.twinbox.admin;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/** Debian's headless Chromium for the page tests: started, signed in, photographed. */
final class Browser {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private Browser() {}

  /** Aborts the test class (fails it when {@code CI=true}) if Chromium or its driver is missing. */
  static void assumeInstalled() {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String why = "SKIPPED: the admin page browser test needs " + CHROMIUM + " and " + CHROMEDRIVER
          + " (Debian packages chromium and chromium-driver: apt-get install chromium chromium-driver)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(why.replaceFirst("SKIPPED", "MISSING (CI=true)"));
      }
      System.err.println(why);
      Assumptions.abort(why);
    }
  }

  static WebDriver chromium() {
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

  static void signIn(WebDriver browser, WebDriverWait wait, String token) {
    WebElement field = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
    field.clear();
    field.sendKeys(token);
    browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
  }

  static void screenshot(WebDriver browser, String name) throws Exception {
    File shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
    Path target = Path.of("target", name);
    Files.createDirectories(target.getParent());
    Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
  }
}
