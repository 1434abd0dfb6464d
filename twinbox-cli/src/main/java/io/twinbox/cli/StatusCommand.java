package io.twinbox.cli;

import io.twinbox.TwinboxAdmin;
import io.twinbox.OutboxStatus;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Durations;
import io.twinbox.cli.internal.Json;
import io.twinbox.cli.internal.Table;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code twinbox status}: the outbox's counts, oldest pending age and lease owners. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Pending, retrying and FAILED events, held aggregates, the oldest pending event's age"
        + " (database clock) and which relays hold the partitions.",
    footer = ExitCodes.HELP)
final class StatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DbOptions db;
  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;
  @Option(names = "--fail-if-pending-older-than", paramLabel = "DURATION",
      description = "Exit 1 when the oldest pending event is older than this (e.g. 5m).")
  String maxPendingAge;
  @Option(names = "--fail-if-failed", description = "Exit 1 when any event is FAILED.")
  boolean failIfFailed;
  @Option(names = "--fail-if-no-relay", description = "Exit 1 when events are pending and no live relay holds a lease.")
  boolean failIfNoRelay;

  @Override
  public Integer call() {
    Duration limit = maxPendingAge == null ? null : Durations.parse("--fail-if-pending-older-than", maxPendingAge);
    OutboxStatus s;
    try (Database d = db.open(spec)) {
      s = TwinboxAdmin.of(d.store()).status();
    }
    List<String> failedChecks = new ArrayList<>();
    if (limit != null && s.pending() > 0 && s.oldestPendingAge().compareTo(limit) > 0) {
      failedChecks.add("oldest pending event is " + Durations.human(s.oldestPendingAge()) + " old (limit "
          + Durations.human(limit) + ")");
    }
    if (failIfFailed && s.failed() > 0) {
      failedChecks.add(s.failed() + " FAILED event(s)");
    }
    if (failIfNoRelay && s.pending() > 0 && s.leaseOwners().isEmpty()) {
      failedChecks.add(s.pending() + " event(s) pending but no live relay holds a lease");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pending", s.pending());
      m.put("retrying", s.retrying());
      m.put("failed", s.failed());
      m.put("heldAggregates", s.heldAggregates());
      m.put("oldestPendingAgeSeconds", s.oldestPendingAge().toMillis() / 1000.0);
      m.put("leaseOwners", s.leaseOwners());
      m.put("unownedPartitions", s.unownedPartitions());
      m.put("checksFailed", failedChecks);
      Json.print(out, m);
    } else {
      new Table("OUTBOX", "VALUE")
          .row("pending", s.pending())
          .row("retrying", s.retrying())
          .row("failed", s.failed())
          .row("held aggregates", s.heldAggregates())
          .row("oldest pending age", s.pending() == 0 ? "-" : Durations.human(s.oldestPendingAge()))
          .row("unowned partitions", s.unownedPartitions())
          .print(out);
      out.println();
      Table owners = new Table("RELAY NODE", "PARTITIONS");
      s.leaseOwners().forEach(owners::row);
      if (s.leaseOwners().isEmpty()) {
        out.println("No live relay holds a lease.");
      } else {
        owners.print(out);
      }
      for (String c : failedChecks) {
        out.println("CHECK FAILED: " + c);
      }
      out.flush();
    }
    return failedChecks.isEmpty() ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
  }
}
