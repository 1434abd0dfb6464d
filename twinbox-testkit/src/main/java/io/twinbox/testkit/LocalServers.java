package io.twinbox.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * Probes the servers installed on the development machine and turns a missing one into a loud skip
 * — or, when the environment variable {@code CI} is {@code true}, into a failure, because a CI run
 * that silently skips its server tests proves nothing.
 *
 * <pre>{@code
 * @BeforeAll
 * static void servers() {
 *   LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
 * }
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class LocalServers {
  /** How long a TCP connect may take before the server counts as not answering. */
  static final int CONNECT_TIMEOUT_MILLIS = 500;

  private static final Map<String, String> HOW_TO_START = Map.of(
      "postgresql", "start it with `service postgresql start`",
      "mariadb", "start it with `service mariadb start`",
      "mysql", "start it with `service mysql start`",
      "rabbitmq", "start it with `service rabbitmq-server start`",
      "nats", "start it with `nats-server -js &`");

  private LocalServers() {}

  /**
   * True when something accepts a TCP connection on {@code host:port} within half a second.
   *
   * @param host a host name or address, e.g. {@code "127.0.0.1"}
   * @param port the TCP port
   */
  public static boolean isUp(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Requires a server for the calling test. When it does not answer on {@code host:port}: with
   * {@code CI=true} this throws an {@link AssertionError} that names the server and how to start
   * it; otherwise it prints {@code SKIPPED: <name> not answering on host:port — ...} to stderr and
   * aborts the test through {@link Assumptions#abort(String)}.
   *
   * @param name the server's human name, e.g. {@code "PostgreSQL"}; well-known names get a hint on
   *     how to start them
   */
  public static void require(String name, String host, int port) {
    require(name, host, port, HOW_TO_START.getOrDefault(name.toLowerCase(Locale.ROOT),
        "start it, or point the test at a running one"));
  }

  /**
   * Like {@link #require(String, String, int)} with an explicit hint on how to start the server.
   *
   * @param howToStart shown in the failure or skip message, e.g. {@code "run `nats-server -js`"}
   */
  public static void require(String name, String host, int port, String howToStart) {
    if (isUp(host, port)) {
      return;
    }
    skipOrFail(name + " not answering on " + host + ":" + port + " — " + howToStart);
  }

  /**
   * Requires an installed program for the calling test, e.g. the PostgreSQL server binaries that
   * {@link PrivatePostgresCluster} runs. When {@code path} does not exist: with {@code CI=true} an
   * {@link AssertionError}, otherwise {@code SKIPPED: <name> not installed at <path> — ...} on
   * stderr and an aborted test, as {@link #require(String, String, int)} does for a server.
   *
   * @param howToInstall shown in the failure or skip message, e.g. {@code "apt-get install postgresql-15"}
   */
  public static void requireInstalled(String name, Path path, String howToInstall) {
    if (Files.exists(path)) {
      return;
    }
    skipOrFail(name + " not installed at " + path + " — " + howToInstall);
  }

  private static void skipOrFail(String reason) {
    if (isCi()) {
      throw new AssertionError("CI=true and " + reason
          + " (on CI a missing server fails the build instead of skipping the test)");
    }
    System.err.println("SKIPPED: " + reason);
    Assumptions.abort(reason);
  }

  /** True when the environment variable {@code CI} is {@code true} (case-insensitive). */
  public static boolean isCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }
}
