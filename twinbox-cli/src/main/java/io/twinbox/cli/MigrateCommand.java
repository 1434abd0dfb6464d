package io.twinbox.cli;

import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Durations;
import io.twinbox.cli.internal.Json;
import io.twinbox.jdbc.JdbcStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code twinbox migrate}: creates or upgrades the Twinbox tables (idempotent). */
@Command(name = "migrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Create or upgrade the Twinbox tables (idempotent; safe from several hosts at once).")
final class MigrateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DbOptions db;
  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;
  @Option(names = "--commit-notifications", paramLabel = "on|off", description = "PostgreSQL: turn the commit"
      + " signal (NOTIFY) on or off for every writer of this database; relays then publish at once instead of"
      + " within their poll interval, at the cost of serialised commits (see docs/relay.md). Default: unchanged.")
  String commitNotifications;
  @Option(names = "--partitioned", description = "PostgreSQL 13+: partition the outbox by time (opt-in, one way;"
      + " converts an existing outbox, copying its rows): history then leaves by dropping whole partitions"
      + " (see docs/partitioned-outbox.md). Default: not partitioned.")
  boolean partitioned;
  @Option(names = "--partition-interval", paramLabel = "<duration>", description = "With --partitioned: the time"
      + " each partition covers, at least 1m (e.g. 1h, 1d). Default: 1d.")
  String partitionInterval;
  @Option(names = "--partitions-ahead", paramLabel = "<n>", description = "With --partitioned: partitions created"
      + " ahead of the current one, 1 to 1000. Default: 3.")
  Integer partitionsAhead;

  @Override
  public Integer call() {
    if (!partitioned && (partitionInterval != null || partitionsAhead != null)) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--partition-interval and --partitions-ahead need --partitioned");
    }
    try (Database d = db.openUnchecked(spec)) {
      if (partitioned) {
        partitionedStore(d).migrate();
      } else {
        d.store().migrate();
      }
      if (commitNotifications != null) {
        if (!commitNotifications.equals("on") && !commitNotifications.equals("off")) {
          throw new CommandLine.ParameterException(spec.commandLine(),
              "--commit-notifications must be on or off, was '" + commitNotifications + "'");
        }
        try {
          d.store().setCommitNotifications(commitNotifications.equals("on"));
        } catch (UnsupportedOperationException e) {
          throw new CommandLine.ParameterException(spec.commandLine(),
              "--commit-notifications: " + d.store().dialect().name() + " has no commit signal");
        }
      }
      String dialect = d.store().dialect().name();
      if (json) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("migrated", true);
        m.put("dialect", dialect);
        m.put("partitioned", d.store().outboxPartitioned());
        if (commitNotifications != null) {
          m.put("commitNotifications", d.store().commitNotifications());
        }
        Json.print(spec.commandLine().getOut(), m);
      } else {
        spec.commandLine().getOut().println("Schema is up to date (" + dialect + ")."
            + (d.store().outboxPartitioned() ? " The outbox is partitioned by time." : "")
            + (commitNotifications == null ? "" : " Commit notifications are "
            + (d.store().commitNotifications() ? "on." : "off.")));
        spec.commandLine().getOut().flush();
      }
      return ExitCodes.OK;
    }
  }

  private JdbcStore partitionedStore(Database d) {
    Duration interval = partitionInterval == null ? Duration.ofDays(1)
        : Durations.parse("--partition-interval", partitionInterval);
    try {
      return JdbcStore.builder(d.pool()).dialect(d.store().dialect())
          .partitionedOutbox(interval, partitionsAhead == null ? 3 : partitionsAhead).build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--partitioned: " + e.getMessage());
    }
  }
}
