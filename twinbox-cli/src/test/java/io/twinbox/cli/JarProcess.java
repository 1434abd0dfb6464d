package io.twinbox.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged {@code twinbox.jar} as operators do ({@code java -jar}), in a process of its
 * own with a controlled environment: no inherited {@code TWINBOX_*} variable, only those given.
 */
final class JarProcess implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Process process;
  private final Path log;

  private JarProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** The jar built by `package` (failsafe passes its path). */
  static Path jar() {
    Path jar = Path.of(System.getProperty("twinbox.cli.jar", "target/twinbox.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " missing: run `mvn verify` (the *IT tests run after `package`)");
    }
    return jar;
  }

  static JarProcess start(Path dir, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-jar",
        jar().toAbsolutePath().toString()));
    command.addAll(List.of(args));
    Path log = dir.resolve("twinbox-" + System.nanoTime() + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(false)
        .redirectOutput(log.toFile()).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("TWINBOX_"));
    pb.environment().putAll(env);
    try {
      return new JarProcess(pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a command to its end: exit code, stdout and stderr kept apart. */
  static Cli.Result run(Path dir, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-jar",
        jar().toAbsolutePath().toString()));
    command.addAll(List.of(args));
    Path out = dir.resolve("out-" + System.nanoTime() + ".txt");
    Path err = dir.resolve("err-" + System.nanoTime() + ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("TWINBOX_"));
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("twinbox " + String.join(" ", args) + " did not finish in 120 s");
      }
      return new Cli.Result(p.exitValue(), Files.readString(out), Files.readString(err));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** GET with an optional bearer token; status and body. */
  static HttpResponse<String> get(String url, String token) {
    return get(HTTP, url, token);
  }

  /** GET through {@code client} (e.g. one that trusts the sidecar's TLS certificate). */
  static HttpResponse<String> get(HttpClient client, String url, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** POST of a JSON body with an optional bearer token; status and body. */
  static HttpResponse<String> post(String url, String token, String json) {
    return post(HTTP, url, token, json);
  }

  /** POST through {@code client}. */
  static HttpResponse<String> post(HttpClient client, String url, String token, String json) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGTERM, then waits up to 60 s for the exit code. */
  int terminate() throws InterruptedException {
    process.destroy(); // SIGTERM on Linux and macOS
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("twinbox did not stop within 60 s of SIGTERM\n" + log());
    }
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
