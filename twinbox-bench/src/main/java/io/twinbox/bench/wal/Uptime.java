package io.twinbox.bench.wal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** What {@code uptime} prints now (the machine's load, recorded with every measurement of a shared machine). */
final class Uptime {
  private Uptime() {}

  static String now() {
    try {
      Process p = new ProcessBuilder("uptime").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor(5, TimeUnit.SECONDS);
      return out;
    } catch (IOException e) {
      return "uptime unavailable (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "uptime interrupted";
    }
  }
}
