package io.twinbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.twinbox.testkit.LocalServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian package {@code prometheus}) as a child process, on a free
 * loopback port with a generated config, a temporary storage directory and a 1 s scrape interval.
 * Absent binary: a loud skip, a failure when {@code CI=true}. {@link #close} kills it.
 */
final class PrometheusServer implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/prometheus");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path log;
  final int port;

  private PrometheusServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Scrapes {@code targets} (job name → host:port) every second and loads {@code ruleFile}. */
  static PrometheusServer start(Path dir, Path ruleFile, List<String[]> targets) throws IOException {
    LocalServers.requireInstalled("Prometheus server", BINARY,
        "Debian package prometheus (apt-get install -y prometheus, with a policy-rc.d denying the service start)");
    StringBuilder config = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n")
        .append("rule_files:\n  - ").append(ruleFile.toAbsolutePath()).append("\nscrape_configs:\n");
    for (String[] t : targets) {
      config.append("  - job_name: ").append(t[0]).append("\n    static_configs:\n      - targets: ['")
          .append(t[1]).append("']\n");
    }
    Path yml = dir.resolve("prometheus.yml");
    Files.writeString(yml, config.toString());
    int port = JarProcess.freePort();
    Path log = dir.resolve("prometheus.log");
    Process p = new ProcessBuilder(BINARY.toString(), "--config.file=" + yml, "--storage.tsdb.path=" + dir.resolve("tsdb"),
        "--web.listen-address=127.0.0.1:" + port, "--storage.tsdb.retention.time=1h")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new PrometheusServer(p, log, port);
  }

  /** {@code /api/v1/query}: the {@code data} node of a successful answer (errors fail). */
  JsonNode query(String promql) {
    return api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
  }

  JsonNode api(String pathAndQuery) {
    HttpResponse<String> r = JarProcess.get("http://127.0.0.1:" + port + pathAndQuery, null);
    try {
      JsonNode body = JSON.readTree(r.body());
      if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
        throw new AssertionError("Prometheus answered " + r.statusCode() + " to " + pathAndQuery + ": " + r.body());
      }
      return body.get("data");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean ready() {
    try {
      return JarProcess.get("http://127.0.0.1:" + port + "/-/ready", null).statusCode() == 200;
    } catch (RuntimeException e) {
      return false;
    }
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }
  }
}
