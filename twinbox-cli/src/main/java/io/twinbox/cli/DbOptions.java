package io.twinbox.cli;

import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Scrubber;
import io.twinbox.cli.internal.Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The options every database command takes: where the settings come from and which database. */
final class DbOptions {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Properties file with the settings (see docs/cli.md and docs/configuration.md); TWINBOX_* environment variables override it.")
  Path config;

  @Option(names = "--db-url", paramLabel = "JDBC_URL", description = "Overrides db.url / TWINBOX_DB_URL.")
  String dbUrl;

  @Option(names = "--db-user", paramLabel = "USER", description = "Overrides db.user / TWINBOX_DB_USER."
      + " The password comes only from the file or TWINBOX_DB_PASSWORD, never from the command line.")
  String dbUser;

  /** Loads the settings and registers their secrets with the output scrubber. */
  Settings settings(CommandSpec spec) {
    Map<String, String> overrides = new LinkedHashMap<>();
    overrides.put("db.url", dbUrl);
    overrides.put("db.user", dbUser);
    Settings s = Settings.load(config, Twinbox.of(spec).env(), overrides);
    Scrubber.addSecrets(s.secretValues());
    return s;
  }

  /**
   * A small pool for a one-shot command, on a database whose schema is checked first.
   *
   * @throws io.twinbox.SchemaNotMigratedException when the tables are missing (exit code 2)
   */
  Database open(CommandSpec spec) {
    Database d = openUnchecked(spec);
    try {
      d.store().verifySchema();
      return d;
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
  }

  /** A small pool for {@code migrate}: the schema may not exist yet. */
  Database openUnchecked(CommandSpec spec) {
    return Database.open(settings(spec), 2, "twinbox-cli");
  }
}
