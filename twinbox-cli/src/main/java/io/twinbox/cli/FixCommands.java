package io.twinbox.cli;

import io.twinbox.TwinboxAdmin;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Json;
import io.twinbox.spi.OutboxAdminStore.EventSelector;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToIntBiFunction;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code twinbox retry} and {@code twinbox skip}: the operator's two ways out of a FAILED event. */
final class FixCommands {
  private FixCommands() {}

  /** Shared by both: select, apply, report, exit 1 when an id or aggregate matched nothing. */
  abstract static class Fix implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    DbOptions db;
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;
    @ArgGroup(exclusive = true, multiplicity = "1")
    Selector selector;

    abstract String verb();

    abstract ToIntBiFunction<TwinboxAdmin, EventSelector> action();

    @Override
    public Integer call() {
      EventSelector s = selector.toSelector();
      if (s == null) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--aggregate must be TYPE:ID (both non-empty), was '" + selector.aggregate + "'");
      }
      int n;
      try (Database d = db.open(spec)) {
        n = action().applyAsInt(TwinboxAdmin.of(d.store()), s);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(verb(), n);
        m.put("selector", selector.describe());
        Json.print(out, m);
      } else {
        out.println(capitalized(verb()) + " " + n + " FAILED event(s) (" + selector.describe() + ").");
        out.flush();
      }
      return n == 0 && !s.all() ? ExitCodes.CHECK_FAILED : ExitCodes.OK;
    }

    private static String capitalized(String s) {
      return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
  }

  @Command(name = "retry", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Put FAILED events back to PENDING with their attempts reset, due now; the aggregate's later"
          + " events follow in order.",
      footer = ExitCodes.HELP)
  static final class Retry extends Fix {
    @Override
    String verb() {
      return "retried";
    }

    @Override
    ToIntBiFunction<TwinboxAdmin, EventSelector> action() {
      return TwinboxAdmin::retry;
    }
  }

  @Command(name = "skip", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Drop FAILED events without publishing them, unblocking their aggregates (consumers will see a"
          + " gap in the aggregate's sequence).",
      footer = ExitCodes.HELP)
  static final class Skip extends Fix {
    @Override
    String verb() {
      return "skipped";
    }

    @Override
    ToIntBiFunction<TwinboxAdmin, EventSelector> action() {
      return TwinboxAdmin::skip;
    }
  }
}
