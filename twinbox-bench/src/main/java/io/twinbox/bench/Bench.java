package io.twinbox.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The Twinbox benchmark driver. One subcommand per scenario; each runs against the local
 * PostgreSQL in a fresh database (testkit {@code PostgresDatabase}) and, where a broker is needed,
 * a Kafka broker process started by the testkit, prints its tables and appends one JSON line per
 * result to {@code results/results.jsonl}. See BENCHMARKS.md at the repository root.
 */
@Command(name = "twinbox-bench", mixinStandardHelpOptions = true, version = "twinbox-bench 0.1",
    description = "Benchmarks of Twinbox against baselines measured in the same run.",
    subcommands = {Commands.Write.class, Commands.RelayThroughput.class, Commands.Latency.class,
        IssueScenarios.Inbox.class, IssueScenarios.Brokers.class, IssueScenarios.MariaDb.class,
        Commands.All.class, Commands.Plot.class,
        io.twinbox.bench.peers.PeersCommand.class, io.twinbox.bench.peers.debezium.DebeziumCommand.class,
        io.twinbox.bench.growth.GrowthCommand.class, io.twinbox.bench.wal.WalCommand.class, HelpCommand.class})
public final class Bench implements Runnable {

  public static void main(String[] args) {
    quietLogs();
    int code = new CommandLine(new Bench()).execute(args);
    System.exit(code);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** Kafka and the pools are chatty at INFO; the harness prints its own progress. */
  private static void quietLogs() {
    setDefault("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    setDefault("org.slf4j.simpleLogger.showDateTime", "true");
    setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
  }

  private static void setDefault(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
