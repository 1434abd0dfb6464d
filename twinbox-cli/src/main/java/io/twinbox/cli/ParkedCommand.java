package io.twinbox.cli;

import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedState;
import io.twinbox.TwinboxAdmin;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Durations;
import io.twinbox.cli.internal.Json;
import io.twinbox.spi.Printable;
import io.twinbox.cli.internal.Table;
import java.io.PrintWriter;
import java.time.Duration;
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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code twinbox parked list|show|replay|discard}: parked inbox messages as operator objects. */
@Command(name = "parked", mixinStandardHelpOptions = true, description = "Parked inbox messages.",
    subcommands = {ParkedCommand.ListCommand.class, ParkedCommand.ShowCommand.class, ParkedCommand.Replay.class,
        ParkedCommand.Discard.class})
final class ParkedCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing subcommand: twinbox parked list|show|replay|discard");
  }

  @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
      description = "List parked messages, oldest first, with their reason (payloads are never shown here).",
      footer = ExitCodes.HELP)
  static final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Mixin
    ParkedOptions filter;
    @Option(names = "--state", paramLabel = "STATE", split = ",",
        description = "Only these states (PARKED, REPLAYING, REPLAYED, DISCARDED); default PARKED,REPLAYING.")
    List<ParkedState> states;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;
    @Option(names = "--fail-if-any", description = "Exit 1 when any message is listed.")
    boolean failIfAny;

    @Override
    public Integer call() {
      ParkedFilter f = filter.filter(spec, ParkedOptions.states(states));
      List<ParkedMessage> found;
      try (Database d = db.open(spec)) {
        found = TwinboxAdmin.of(d.store()).parked(f);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        List<Map<String, Object>> list = new ArrayList<>();
        found.forEach(p -> list.add(ParkedOptions.json(p)));
        Json.print(out, list);
      } else if (found.isEmpty()) {
        out.println("No parked messages.");
        out.flush();
      } else {
        Table t = new Table("ID", "CONSUMER", "MESSAGE ID", "STATE", "ATTEMPTS", "AGGREGATE", "TYPE", "PARKED",
            "REASON");
        for (ParkedMessage p : found) {
          String reason = p.reason().length() > 80 ? p.reason().substring(0, 79) + "…" : p.reason();
          t.row(p.id(), p.consumer(), p.messageId(), p.state(), p.attempts(),
              p.aggregateType() == null ? null : p.aggregateType() + ":" + (p.aggregateId() == null ? "-"
                  : p.aggregateId()), p.type(), p.parkedAt(), reason);
        }
        t.print(out);
        out.println(found.size() + " message(s)" + (found.size() == f.limit() ? " (limit reached; use --limit)" : "")
            + ".");
        out.flush();
      }
      return failIfAny && !found.isEmpty() ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Show one parked message: attributes, headers, reason, state and its audit trail.",
      footer = ExitCodes.HELP)
  static final class ShowCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Parameters(paramLabel = "ID", description = "The parked message's id (the ID column of list).")
    long id;
    @Option(names = "--payload", description = "Also show the payload (it may hold personal data).")
    boolean payload;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Override
    public Integer call() {
      ParkedMessage p;
      List<ParkedAudit> trail;
      try (Database d = db.open(spec)) {
        TwinboxAdmin admin = TwinboxAdmin.of(d.store());
        p = admin.parkedMessage(id, payload);
        trail = admin.parkedAudit(id);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> m = ParkedOptions.json(p);
        List<Map<String, Object>> audit = new ArrayList<>();
        for (ParkedAudit a : trail) {
          Map<String, Object> line = new LinkedHashMap<>();
          line.put("action", a.action());
          line.put("actor", a.actor());
          line.put("at", a.at() == null ? null : a.at().toString());
          line.put("detail", a.detail());
          audit.add(line);
        }
        m.put("audit", audit);
        Json.print(out, m);
        return ExitCodes.OK;
      }
      Table t = new Table("FIELD", "VALUE");
      ParkedOptions.json(p).forEach((k, v) -> t.row(k, v));
      t.print(out);
      if (!trail.isEmpty()) {
        Table a = new Table("AT", "ACTION", "BY", "DETAIL");
        trail.forEach(x -> a.row(x.at(), x.action(), x.actor(), x.detail()));
        out.println();
        a.print(out);
      }
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** Shared by replay and discard: one id, or the messages the filter selects. */
  abstract static class Change implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Mixin
    ParkedOptions filter;
    @Parameters(paramLabel = "ID", arity = "0..1", description = "One parked message; without it, the filter"
        + " options select (at least one of them is required).")
    Long id;
    @Option(names = "--by", paramLabel = "NAME", description = "Who does this, for the audit record"
        + " (default cli:<user>).")
    String by;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    /** The filter of a bulk change; a usage error without a narrowing option. */
    ParkedFilter bulkFilter() {
      if (!filter.narrowed()) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "give an ID, or select with --consumer, --reason, --older-than or --aggregate");
      }
      return filter.filter(spec, ParkedOptions.states(null));
    }

    void print(Map<String, Object> json, String text) {
      PrintWriter out = spec.commandLine().getOut();
      if (this.json) {
        Json.print(out, json);
      } else {
        out.println(Printable.of(text));
        out.flush();
      }
    }
  }

  @Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Ask the message's consumer to run it again through its handler, in a new transaction that"
          + " records it in the inbox (applied at most once); waits for the outcome.",
      footer = ExitCodes.HELP)
  static final class Replay extends Change {
    @Option(names = "--timeout", defaultValue = "30s", paramLabel = "AGE",
        description = "How long to wait for the consumer (default ${DEFAULT-VALUE}); 0s: do not wait.")
    String timeout;

    @Override
    public Integer call() throws InterruptedException {
      Duration wait = Durations.parse("--timeout", timeout);
      ParkedFilter bulk = id == null ? bulkFilter() : null;
      try (Database d = db.open(spec)) {
        TwinboxAdmin admin = TwinboxAdmin.of(d.store());
        if (bulk != null) {
          int n = admin.replayParked(bulk, ParkedOptions.by(by));
          print(Map.of("replayRequested", n), "Asked for the replay of " + n + " parked message(s); their consumers"
              + " replay them within their replay interval (see twinbox parked list --state REPLAYING,REPLAYED).");
          return n == 0 ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
        }
        ParkedMessage p = admin.replayParked(id, ParkedOptions.by(by));
        long deadline = System.nanoTime() + wait.toNanos();
        while (p.state() == ParkedState.REPLAYING && System.nanoTime() < deadline) {
          Thread.sleep(200);
          p = admin.parkedMessage(id, false);
        }
        return outcome(admin, p, wait);
      }
    }

    private int outcome(TwinboxAdmin admin, ParkedMessage p, Duration wait) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", p.id());
      m.put("state", p.state().name());
      switch (p.state()) {
        case REPLAYED -> {
          List<ParkedAudit> trail = admin.parkedAudit(p.id());
          boolean noop = !trail.isEmpty() && trail.get(trail.size() - 1).action().equals(ParkedAudit.REPLAYED_NOOP);
          m.put("handlerRan", !noop);
          print(m, "Replayed parked message " + p.id() + (noop ? ": its id had been applied before, the handler did"
              + " not run." : ": the handler ran and committed."));
          return ExitCodes.OK;
        }
        case PARKED -> {
          m.put("reason", p.reason());
          print(m, "The replay of parked message " + p.id() + " failed; it is parked again: " + p.reason());
          return ExitCodes.CHECK_FAILED;
        }
        case DISCARDED -> {
          print(m, "Parked message " + p.id() + " was discarded while its replay waited.");
          return ExitCodes.CHECK_FAILED;
        }
        default -> {
          m.put("waited", wait.toString());
          print(m, wait.isZero() ? "Asked for the replay of parked message " + p.id() + "."
              : "Replay of parked message " + p.id() + ": no consumer picked it up within " + Durations.human(wait)
                  + "; the request stays (state REPLAYING): is an InboxConsumer of '" + p.consumer() + "' running?");
          return wait.isZero() ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
        }
      }
    }
  }

  @Command(name = "discard", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Drop parked messages for good, with an audit record (who, what, when); the rows stay, DISCARDED.",
      footer = ExitCodes.HELP)
  static final class Discard extends Change {
    @Override
    public Integer call() {
      ParkedFilter bulk = id == null ? bulkFilter() : null;
      try (Database d = db.open(spec)) {
        TwinboxAdmin admin = TwinboxAdmin.of(d.store());
        if (bulk != null) {
          int n = admin.discardParked(bulk, ParkedOptions.by(by));
          print(Map.of("discarded", n), "Discarded " + n + " parked message(s).");
          return n == 0 ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
        }
        ParkedMessage p = admin.discardParked(id, ParkedOptions.by(by));
        print(Map.of("id", p.id(), "state", p.state().name()), "Discarded parked message " + p.id() + ".");
        return ExitCodes.OK;
      }
    }
  }
}
