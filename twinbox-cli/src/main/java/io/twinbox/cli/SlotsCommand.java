package io.twinbox.cli;

import io.twinbox.ChangeFeedException;
import io.twinbox.RelaySettings;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Json;
import io.twinbox.spi.Printable;
import io.twinbox.cli.internal.Table;
import io.twinbox.jdbc.WalSlot;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code twinbox slots list} and {@code twinbox slots drop NAME}: the WAL relay's replication
 * slots on the PostgreSQL server ({@code JdbcStore.walSlots()} and {@code dropWalSlot}).
 */
@Command(name = "slots", mixinStandardHelpOptions = true,
    description = "The WAL relay's replication slots (PostgreSQL).",
    subcommands = {SlotsCommand.ListCommand.class, SlotsCommand.DropCommand.class})
final class SlotsCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing subcommand: twinbox slots list, or twinbox slots drop NAME");
  }

  @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
      description = "List Twinbox's replication slots (logical pgoutput slots named twinbox…) on the server: whether"
          + " a relay streams each, its confirmed position, the WAL behind it and the WAL the server keeps for it.",
      footer = ExitCodes.HELP)
  static final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Override
    public Integer call() {
      List<WalSlot> slots;
      try (Database d = db.open(spec)) {
        slots = d.store().walSlots();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (WalSlot s : slots) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("name", s.name());
          m.put("database", s.database());
          m.put("active", s.active());
          m.put("activePid", s.activePid());
          m.put("confirmedLsn", s.confirmedLsn());
          m.put("lagBytes", s.lagBytes());
          m.put("retainedBytes", s.retainedBytes());
          m.put("walStatus", s.walStatus());
          list.add(m);
        }
        Json.print(out, list);
      } else if (slots.isEmpty()) {
        out.println("No Twinbox replication slots on this server.");
        out.flush();
      } else {
        Table t = new Table("NAME", "DATABASE", "ACTIVE", "CONFIRMED LSN", "LAG", "WAL RETAINED", "WAL STATUS");
        for (WalSlot s : slots) {
          t.row(s.name(), s.database(), s.active() ? "yes (pid " + s.activePid() + ")" : "no", s.confirmedLsn(),
              bytes(s.lagBytes()), bytes(s.retainedBytes()), s.walStatus().isEmpty() ? "-" : s.walStatus());
        }
        t.print(out);
        out.println(slots.size() + " slot(s).");
        out.flush();
      }
      return ExitCodes.OK;
    }
  }

  @Command(name = "drop", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Drop one of Twinbox's replication slots and, in this database, its publication: the server"
          + " stops keeping WAL for it. Refused while a relay streams it (stop the WAL relays first). Events not yet"
          + " published stay in the outbox table; the polling relay, or a WAL relay started anew (new slot),"
          + " publishes them.",
      footer = ExitCodes.HELP)
  static final class DropCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;
    @Parameters(index = "0", paramLabel = "NAME", description = "The slot's name (twinbox…, as `slots list` shows it).")
    String name;

    @Override
    public Integer call() {
      try {
        RelaySettings.WAL_SLOT.check(name, "NAME");
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage() + ", was '"
            + Printable.of(name) + "' (only Twinbox's own slots can be dropped here)");
      }
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      try (Database d = db.open(spec)) {
        Optional<WalSlot> slot = d.store().walSlots().stream().filter(s -> s.name().equals(name)).findFirst();
        if (slot.isPresent() && slot.get().active()) {
          return inUse(err, slot.get().activePid());
        }
        boolean dropped;
        try {
          dropped = d.store().dropWalSlot(name);
        } catch (ChangeFeedException e) {
          if (e.problem() != ChangeFeedException.Problem.SLOT_IN_USE) {
            throw e;
          }
          return inUse(err, -1); // a relay attached between the check and the drop
        }
        if (json) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("slot", name);
          m.put("dropped", dropped);
          Json.print(out, m);
        } else {
          out.println(dropped ? "Dropped replication slot " + name + " and its publication."
              : "No replication slot " + name + " on this server.");
          out.flush();
        }
        return dropped ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
      }
    }

    private int inUse(PrintWriter err, int pid) {
      err.println("twinbox: replication slot " + name + " is in use" + (pid > 0 ? " by server process " + pid : "")
          + " (a WAL relay streams it): stop the WAL relays first; nothing was dropped.");
      err.flush();
      return ExitCodes.CHECK_FAILED;
    }
  }

  private static String bytes(long n) {
    if (n < 0) {
      return "?";
    }
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
