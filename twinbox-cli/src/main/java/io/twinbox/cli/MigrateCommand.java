package io.twinbox.cli;

import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
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

  @Override
  public Integer call() {
    try (Database d = db.openUnchecked(spec)) {
      d.store().migrate();
      String dialect = d.store().dialect().name();
      if (json) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("migrated", true);
        m.put("dialect", dialect);
        Json.print(spec.commandLine().getOut(), m);
      } else {
        spec.commandLine().getOut().println("Schema is up to date (" + dialect + ").");
        spec.commandLine().getOut().flush();
      }
      return ExitCodes.OK;
    }
  }
}
