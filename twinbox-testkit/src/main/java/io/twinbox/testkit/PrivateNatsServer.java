package io.twinbox.testkit;

import io.twinbox.testkit.internal.NativeServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A NATS server with JetStream of its own ({@code /usr/sbin/nats-server}), for tests and fault runs
 * that {@code kill -9} the broker without touching the machine's shared server on 4222.
 *
 * <p>It runs {@code nats-server -a 127.0.0.1 -p <port> -js -sd <home>/jetstream -l
 * <home>/nats.log} — the flags of the shared server, on a free port below the kernel's ephemeral
 * range (so that no outgoing connection can take it while the server is down) and with its own
 * file store. {@link #kill()} is {@code SIGKILL}; {@link #restart()} starts the same binary on the
 * same port and store, so file-backed streams come back with what the server had written to its
 * files (a process kill leaves written pages in the OS cache; JetStream's periodic fsync matters only
 * for a power cut, which this does not play); JetStream recovers its streams before it accepts
 * clients, and {@link #restart()}, like {@link #start()}, waits up to 30 s for that. Ready means a
 * TCP client receives the server's {@code INFO} line with {@code "jetstream":true}.
 *
 * <pre>{@code
 * try (PrivateNatsServer nats = PrivateNatsServer.start()) {
 *   Connection c = Nats.connect(nats.url());
 *   nats.kill();
 *   nats.restart();
 * }
 * }</pre>
 *
 * <p>{@link #close()} kills the server and deletes the JetStream store, {@link #storeDir()} (the
 * whole folder when it was a temporary one). A JVM shutdown hook does the same for servers still
 * running at exit; a server left behind by a JVM killed with {@code -9} is killed, and its
 * temporary folder deleted, by the next {@link #start()} in any JVM.
 *
 * <p>Thread-safe: state changes are serialised.
 */
public final class PrivateNatsServer extends NativeServer {
  /** Where Debian's {@code nats-server} package puts the server. */
  public static final Path BINARY = Path.of("/usr/sbin/nats-server");

  private static final Kind KIND = new Kind("private NATS server", "twinbox-nats-", 1, Duration.ofSeconds(30), 50,
      250);

  private PrivateNatsServer(Path home) {
    super(KIND, home);
  }

  /** True when {@link #BINARY} is installed. */
  public static boolean installed() {
    return Files.isExecutable(BINARY);
  }

  /**
   * Starts a server in a new temporary folder, deleted whole at {@link #close()}, and waits until
   * it is ready.
   *
   * @throws IllegalStateException when {@code nats-server} is not installed, or the server is not
   *     ready within 30 s (the message holds the tail of its log)
   */
  public static PrivateNatsServer start() {
    requireInstalled();
    return started(new PrivateNatsServer(null));
  }

  /**
   * Starts a server in {@code home} (emptied first if it exists); {@link #close()} deletes only the
   * JetStream store there and keeps the log.
   *
   * @throws IllegalStateException as {@link #start()}
   */
  public static PrivateNatsServer start(Path home) {
    requireInstalled();
    return started(new PrivateNatsServer(home));
  }

  /** {@code nats://127.0.0.1:<port>}. */
  public String url() {
    return "nats://127.0.0.1:" + port();
  }

  /** JetStream's store directory ({@code -sd}). */
  public Path storeDir() {
    return home().resolve("jetstream");
  }

  /** The server's log ({@code -l}), also receiving its stdout and stderr. */
  public Path logFile() {
    return home().resolve("nats.log");
  }

  @Override
  protected Path dataDir() {
    return storeDir();
  }

  @Override
  protected List<String> command() {
    return List.of(BINARY.toString(), "-a", "127.0.0.1", "-p", Integer.toString(port()), "-js",
        "-sd", storeDir().toString(), "-l", logFile().toString());
  }

  @Override
  protected List<Path> logs() {
    return List.of(logFile());
  }

  /** True when a client on the port receives an {@code INFO} line announcing JetStream. */
  @Override
  protected boolean ready() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port()), 500);
      s.setSoTimeout(2_000);
      String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
      return line != null && line.startsWith("INFO ") && line.contains("\"jetstream\":true");
    } catch (IOException e) {
      return false;
    }
  }

  private static void requireInstalled() {
    if (!installed()) {
      throw new IllegalStateException("nats-server is not installed at " + BINARY + " (Debian package nats-server)");
    }
  }
}
