package io.twinbox.testkit;

import io.twinbox.testkit.internal.NativeServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A RabbitMQ node of its own, for tests and fault runs that {@code kill -9} the broker without
 * touching the machine's shared node {@code rabbit@localhost} (AMQP on 5672, distribution on 25672).
 *
 * <p>The installed server's own start script ({@code rabbitmq-server} of the Debian package, called
 * directly, not through the wrapper that switches to the {@code rabbitmq} user) runs as node {@code
 * tb<port>@localhost} with everything of its own: AMQP and distribution ports on 127.0.0.1 picked
 * below the kernel's ephemeral range (so that no outgoing connection can take them while the node
 * is down), Mnesia and message store, logs, an empty plugin list, a {@code rabbitmq.conf}, an empty
 * {@code rabbitmq-env.conf} (so the machine's {@code /etc/rabbitmq/rabbitmq-env.conf} and its node
 * name are not read) and a {@code HOME} for the Erlang cookie. Only the machine's {@code epmd} is
 * shared, where the node registers its name. {@code RUNNING_UNDER_SYSTEMD} makes the script {@code
 * exec} the Erlang VM, so the launched process is {@code beam.smp} itself; {@link #kill()} sends
 * {@code SIGKILL} to it and to its helpers ({@code erl_child_setup}, {@code inet_gethost}) at once.
 * {@link #restart()} starts the node again with the same ports and data: durable queues and their
 * persistent messages come back (a quorum queue's log is fsynced before a publisher confirm), and
 * are recovered before it accepts AMQP connections; it waits up to 90 s for that, as {@link
 * #start()} does.
 * Ready means the AMQP listener answers the protocol header with {@code connection.start}; the
 * user is {@code guest}/{@code guest}, allowed from loopback.
 *
 * <p>{@link #close()} kills the node and deletes its data (the whole folder when it was a temporary
 * one). A JVM shutdown hook does the same for nodes still running at exit; a node left behind by a
 * JVM killed with {@code -9} is killed, and its temporary folder deleted, by the next {@link
 * #start()} in any JVM.
 *
 * <p>Thread-safe: state changes are serialised.
 */
public final class PrivateRabbitNode extends NativeServer {
  /** The Debian package's link to the server's start script. */
  public static final Path SCRIPT = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");

  private static final Kind KIND = new Kind("private RabbitMQ node", "twinbox-rabbit-", 2, Duration.ofSeconds(90),
      200, 500);
  private static final byte[] AMQP_091_HEADER = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};

  private final Path script;

  private PrivateRabbitNode(Path home, Path script) {
    super(KIND, home);
    this.script = script;
  }

  /** True when the server's start script is installed. */
  public static boolean installed() {
    return Files.isExecutable(SCRIPT);
  }

  /**
   * Starts a node in a new temporary folder (deleted whole at {@link #close()}) and waits until it
   * accepts AMQP connections.
   *
   * @throws IllegalStateException when RabbitMQ is not installed, or the node is not ready within
   *     90 s (the message holds the tail of its log)
   */
  public static PrivateRabbitNode start() {
    return started(new PrivateRabbitNode(null, realScript()));
  }

  /**
   * As {@link #start()} in {@code home} (emptied first if it exists); {@link #close()} deletes only
   * the node's data there and keeps the logs.
   */
  public static PrivateRabbitNode start(Path home) {
    return started(new PrivateRabbitNode(home, realScript()));
  }

  /** The Erlang distribution port on 127.0.0.1. */
  public int distributionPort() {
    return port(1);
  }

  /** {@code tb<port>@localhost}. */
  public String nodeName() {
    return "tb" + port() + "@localhost";
  }

  /** Mnesia and the message stores ({@code RABBITMQ_MNESIA_BASE}), deleted by {@link #close()}. */
  @Override
  public Path dataDir() {
    return home().resolve("mnesia");
  }

  /** The node's own log (in {@code RABBITMQ_LOG_BASE}). */
  public Path logFile() {
    return home().resolve("log").resolve(nodeName() + ".log");
  }

  /** The start script's and the VM's stdout and stderr. */
  public Path consoleLog() {
    return home().resolve("console.log");
  }

  @Override
  public String toString() {
    return "private RabbitMQ node " + nodeName() + " on 127.0.0.1:" + port() + " (" + home() + ")";
  }

  @Override
  protected void configure() {
    Path home = home();
    try {
      Files.createDirectories(home.resolve("home"));
      Files.createDirectories(home.resolve("log"));
      Files.writeString(home.resolve("enabled_plugins"), "[].\n", StandardCharsets.UTF_8);
      Files.writeString(home.resolve("rabbitmq-env.conf"), "", StandardCharsets.UTF_8);
      Files.writeString(home.resolve("rabbitmq.conf"), "# twinbox-testkit PrivateRabbitNode\n"
          + "listeners.tcp.1 = 127.0.0.1:" + port() + "\n"
          + "listeners.ssl = none\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the configuration of a private RabbitMQ node in " + home, e);
    }
  }

  @Override
  protected List<String> command() {
    return List.of(script.toString());
  }

  @Override
  protected Map<String, String> environment() {
    Path home = home();
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", home.resolve("home").toString());
    env.put("RUNNING_UNDER_SYSTEMD", "true");
    env.put("RABBITMQ_CONF_ENV_FILE", home.resolve("rabbitmq-env.conf").toString());
    env.put("RABBITMQ_CONFIG_FILE", home.resolve("rabbitmq.conf").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", home.resolve("enabled_plugins").toString());
    env.put("RABBITMQ_NODENAME", nodeName());
    env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_NODE_PORT", Integer.toString(port()));
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distributionPort()));
    env.put("RABBITMQ_MNESIA_BASE", dataDir().toString());
    env.put("RABBITMQ_LOG_BASE", home.resolve("log").toString());
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
    env.put("ERL_FLAGS", "-kernel inet_dist_use_interface {127,0,0,1}");
    return env;
  }

  /** The console log, where a VM that fails to boot says why, then the node's own log. */
  @Override
  protected List<Path> logs() {
    return List.of(consoleLog(), logFile());
  }

  /** True when the AMQP 0-9-1 header is answered by a method frame (connection.start). */
  @Override
  protected boolean ready() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port()), 500);
      s.setSoTimeout(2_000);
      s.getOutputStream().write(AMQP_091_HEADER);
      return s.getInputStream().read() == 1;
    } catch (IOException e) {
      return false;
    }
  }

  /** The real script, not the wrapper that would cd to /var/lib/rabbitmq and switch users. */
  private static Path realScript() {
    try {
      return SCRIPT.toRealPath();
    } catch (IOException e) {
      throw new IllegalStateException("RabbitMQ is not installed: no " + SCRIPT + " (Debian package rabbitmq-server)");
    }
  }
}
