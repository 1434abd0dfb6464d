package io.twinbox.cli;

import io.twinbox.SchemaNotMigratedException;
import io.twinbox.cli.internal.ConfigException;
import io.twinbox.cli.internal.Database;
import io.twinbox.spi.Printable;
import io.twinbox.cli.internal.Scrubber;
import io.twinbox.cli.internal.Settings;
import io.twinbox.cli.internal.UnreachableException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code twinbox} command: the standalone relay ({@code twinbox relay}, a sidecar for services
 * in any language that insert rows into {@code twinbox_outbox}) and the operator's commands. Every
 * command goes through Twinbox's public admin API ({@code OutboxAdminStore}, {@code Health},
 * {@code Relay}, {@code JdbcStore}).
 *
 * <pre>{@code
 * java -jar twinbox.jar relay --config twinbox.properties
 * java -jar twinbox.jar status --json
 * }</pre>
 *
 * <p>Exit codes: see {@link ExitCodes}.
 */
@Command(name = "twinbox", mixinStandardHelpOptions = true, version = "twinbox 0.1.0-SNAPSHOT",
    description = "Transactional outbox relay and operator tool. Settings come from --config FILE and"
        + " TWINBOX_* environment variables (e.g. TWINBOX_DB_URL, TWINBOX_DB_PASSWORD).",
    subcommands = {RelayCommand.class, MigrateCommand.class, StatusCommand.class, FailedCommand.class,
        FixCommands.Retry.class, FixCommands.Skip.class, PurgeCommand.class, SlotsCommand.class,
        DemoCommand.class, ParkedCommand.class},
    footer = ExitCodes.HELP)
public final class Twinbox implements Runnable {
  @Spec
  CommandSpec spec;

  private final Map<String, String> env;

  private Twinbox(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** The environment the settings are read from. */
  Map<String, String> env() {
    return env;
  }

  static Twinbox of(CommandSpec spec) {
    return (Twinbox) spec.root().userObject();
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    configureLogging(args.length > 0 && args[0].equals("relay"));
    Scrubber.install();
    System.exit(run(args, System.getenv(), new PrintWriter(System.out, true, StandardCharsets.UTF_8),
        new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
  }

  /**
   * Runs one command in this JVM (for embedding and tests) and returns its exit code.
   *
   * @param env the environment to read {@code TWINBOX_*} settings from
   */
  public static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
    CommandLine cl = new CommandLine(new Twinbox(env));
    cl.setOut(out);
    cl.setErr(err);
    // 100 columns: the longest key line (retention.supplied.id.retention / its variable / default) stays whole
    cl.getSubcommands().get("relay").getCommandSpec().usageMessage().width(100)
        .footer(settingsHelp() + ExitCodes.HELP);
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      int code = exitCode(e);
      // A driver's message may quote data (a constraint's values): controls are shown, not sent.
      commandLine.getErr().println("twinbox: " + Printable.of(Scrubber.scrub(message(e))));
      commandLine.getErr().flush();
      return code;
    });
    return cl.execute(args);
  }

  /** The settings, their environment variables and defaults, for {@code twinbox relay --help}. */
  private static String settingsHelp() {
    StringBuilder b = new StringBuilder("%nSettings (config file key / environment variable, default):%n");
    for (Settings.Key k : Settings.KEYS) {
      b.append("  ").append(k.name()).append(" / ").append(k.envName())
          .append(k.defaultValue() == null ? "" : " (" + k.defaultValue() + ")").append("%n")
          .append("      ").append(k.description().replace("%", "%%")).append("%n");
    }
    b.append("  ").append(Settings.KAFKA_PROPERTY_PREFIX).append("<name> / ")
        .append(new Settings.Key(Settings.KAFKA_PROPERTY_PREFIX, null, false, "").envName()).append("<NAME>%n")
        .append("      any Kafka producer property (values are never shown)%n");
    return b.toString();
  }

  private static int exitCode(Exception e) {
    if (e instanceof ConfigException || e instanceof SchemaNotMigratedException) {
      return ExitCodes.USAGE;
    }
    if (e instanceof UnreachableException || isConnectionProblem(e)) {
      return ExitCodes.UNREACHABLE;
    }
    return ExitCodes.CHECK_FAILED;
  }

  private static String message(Exception e) {
    if (e instanceof io.twinbox.ParkedMessageException) {
      return e.getMessage();
    }
    if (e instanceof ConfigException) {
      return "configuration error: " + e.getMessage();
    }
    if (e instanceof UnreachableException) {
      return e.getMessage();
    }
    if (e instanceof SchemaNotMigratedException) {
      return "the Twinbox tables are missing or outdated; run `twinbox migrate` (" + e.getMessage() + ")";
    }
    if (isConnectionProblem(e)) {
      return "lost the database: " + Database.rootReason(e);
    }
    return "failed: " + e.getClass().getSimpleName() + ": " + Database.rootReason(e);
  }

  private static boolean isConnectionProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null
          && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("28"))) {
        return true;
      }
    }
    return false;
  }

  /** slf4j-simple to stderr with timestamps; quiet for one-shot commands, INFO for the relay. */
  private static void configureLogging(boolean relay) {
    setDefault("org.slf4j.simpleLogger.defaultLogLevel", relay ? "info" : "warn");
    setDefault("org.slf4j.simpleLogger.showDateTime", "true");
    setDefault("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    setDefault("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
    setDefault("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
  }

  private static void setDefault(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }
}
