package io.twinbox.cli;

import io.twinbox.TwinboxAdmin;
import io.twinbox.StoredEvent;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Json;
import io.twinbox.cli.internal.Table;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code twinbox failed list}: FAILED and retrying events, without payloads. */
@Command(name = "failed", mixinStandardHelpOptions = true, description = "FAILED and retrying events.",
    subcommands = FailedCommand.ListCommand.class)
final class FailedCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: twinbox failed list");
  }

  @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
      description = "List FAILED and retrying events, oldest first, with their last error (payloads are never shown).",
      footer = ExitCodes.HELP)
  static final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;
    @Option(names = "--type", paramLabel = "TYPE", description = "Only events of this type.")
    String type;
    @Option(names = "--aggregate-type", paramLabel = "TYPE", description = "Only this aggregate type.")
    String aggregateType;
    @Option(names = "--aggregate-id", paramLabel = "ID", description = "Only this aggregate id.")
    String aggregateId;
    @Option(names = "--limit", defaultValue = "50", paramLabel = "N",
        description = "At most N events, 1 to 10000 (default ${DEFAULT-VALUE}).")
    int limit;
    @Option(names = "--fail-if-any", description = "Exit 1 when any event is listed.")
    boolean failIfAny;

    @Override
    public Integer call() {
      if (limit < 1 || limit > 10_000) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be within [1, 10000], was " + limit);
      }
      List<StoredEvent> events;
      try (Database d = db.open(spec)) {
        events = TwinboxAdmin.of(d.store()).failed(type, aggregateType, aggregateId, limit);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (StoredEvent e : events) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("id", e.id() == null ? null : e.id().toString()); // null: not a UUID (undecodable)
          m.put("status", e.status());
          m.put("type", e.type());
          m.put("version", e.version());
          m.put("aggregateType", e.aggregateType());
          m.put("aggregateId", e.aggregateId());
          m.put("sequence", e.sequence());
          m.put("position", e.position());
          m.put("attempts", e.attempts());
          m.put("lastError", e.lastError());
          m.put("createdAt", e.createdAt() == null ? null : e.createdAt().toString());
          m.put("nextAttemptAt", e.nextAttemptAt() == null ? null : e.nextAttemptAt().toString());
          list.add(m);
        }
        Json.print(out, list);
      } else if (events.isEmpty()) {
        out.println("No FAILED or retrying events.");
        out.flush();
      } else {
        Table t = new Table("ID", "STATUS", "ATTEMPTS", "AGGREGATE", "SEQ", "TYPE", "CREATED", "LAST ERROR");
        for (StoredEvent e : events) {
          String error = e.lastError() == null ? null
              : e.lastError().length() > 80 ? e.lastError().substring(0, 79) + "…" : e.lastError();
          t.row(e.id() == null ? "(not a UUID)" : e.id(), e.status().equals("PENDING") ? "RETRYING" : e.status(), e.attempts(),
              e.aggregateType() + ":" + (e.aggregateId() == null ? "-" : e.aggregateId()), e.sequence(), e.type(),
              e.createdAt(), error);
        }
        t.print(out);
        out.println(events.size() + " event(s)" + (events.size() == limit ? " (limit reached; use --limit)" : "") + ".");
        out.flush();
      }
      return failIfAny && !events.isEmpty() ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
    }
  }
}
