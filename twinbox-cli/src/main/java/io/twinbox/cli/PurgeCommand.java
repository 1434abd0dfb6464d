package io.twinbox.cli;

import io.twinbox.InboxRetentionTooShortException;
import io.twinbox.RetentionSettings;
import io.twinbox.TwinboxAdmin;
import io.twinbox.cli.internal.Database;
import io.twinbox.cli.internal.Durations;
import io.twinbox.cli.internal.Json;
import io.twinbox.cli.internal.Settings;
import io.twinbox.jdbc.JdbcInboxStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code twinbox purge}: deletes old PUBLISHED rows — or, with {@code --inbox}, old inbox records —
 * in small batches, with progress. An inbox age below the redelivery horizon ({@code
 * retention.redelivery.horizon}) is refused unless {@code --force} is given.
 */
@Command(name = "purge", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Delete PUBLISHED events (completion mode MARK) older than a given age, in small batches that"
        + " never block the relay. FAILED and pending events are never touched. Progress goes to stderr.",
        "With --inbox: delete inbox records older than the age instead (all consumers); parked messages are never"
        + " touched. An age below retention.redelivery.horizon (default 8d, the longest time the broker may"
        + " redeliver a message) is refused: a message redelivered after its record is gone would be processed"
        + " twice. --force purges anyway."},
    footer = ExitCodes.HELP)
final class PurgeCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DbOptions db;
  @Option(names = "--json", description = "Print JSON instead of text.")
  boolean json;
  @Option(names = "--older-than", required = true, paramLabel = "DURATION", description = "e.g. 30d, 12h.")
  String olderThan;
  @Option(names = "--inbox", description = "Purge inbox records (twinbox_inbox) instead of PUBLISHED events.")
  boolean inbox;
  @Option(names = "--archive", description = "Move the PUBLISHED events to twinbox_outbox_archive (every column,"
      + " plus archived_at) instead of deleting them, each batch entirely or not at all; prints the archive's size.")
  boolean archive;
  @Option(names = "--force", description = "With --inbox: purge even below the redelivery horizon"
      + " (retention.redelivery.horizon); duplicates redelivered later would be processed again.")
  boolean force;
  @Option(names = "--batch", defaultValue = "500", paramLabel = "N",
      description = "Rows per statement, 1 to 100000 (default ${DEFAULT-VALUE}).")
  int batch;
  @Option(names = "--quiet", description = "No progress lines.")
  boolean quiet;

  @Override
  public Integer call() {
    Duration age = Durations.parse("--older-than", olderThan);
    if (batch < 1 || batch > 100_000) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--batch must be within [1, 100000], was " + batch);
    }
    if (archive && inbox) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--archive applies to PUBLISHED events only,"
          + " not to --inbox (inbox records are not archived)");
    }
    if (force && !inbox) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--force applies to --inbox only");
    }
    Settings settings = db.settings(spec);
    if (inbox && !force) {
      Duration horizon = settings.value(RetentionSettings.CATALOGUE, RetentionSettings.REDELIVERY_HORIZON);
      if (age.compareTo(horizon) < 0) {
        throw new CommandLine.ParameterException(spec.commandLine(), InboxRetentionTooShortException.message(
            "--older-than", age, Settings.key(RetentionSettings.CATALOGUE, RetentionSettings.REDELIVERY_HORIZON),
            horizon) + "; --force purges anyway");
      }
    }
    PrintWriter err = spec.commandLine().getErr();
    long total = 0;
    long started = System.nanoTime();
    long lastReport = started;
    long archived = -1;
    try (Database d = db.open(spec)) {
      IntSupplier purge = inbox ? () -> JdbcInboxStore.of(d.store()).purgeProcessed(age, batch)
          : archive ? () -> d.store().archivePublished(age, batch)
          : () -> TwinboxAdmin.of(d.store()).purgePublished(age, batch);
      int n;
      do {
        n = purge.getAsInt();
        total += n;
        long now = System.nanoTime();
        if (!quiet && now - lastReport >= 1_000_000_000L) {
          err.printf("purge: %,d rows %s so far (%.0f rows/s)%n", total, archive ? "archived" : "deleted",
              total / ((now - started) / 1e9));
          err.flush();
          lastReport = now;
        }
      } while (n == batch);
      if (archive) {
        archived = d.store().countArchived();
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("purged", total);
      m.put("kind", inbox ? "inbox" : "published");
      if (archive) {
        m.put("archived", true);
        m.put("archiveRows", archived);
      }
      m.put("olderThanSeconds", age.toSeconds());
      m.put("seconds", Math.round(seconds * 1000) / 1000.0);
      Json.print(out, m);
    } else {
      if (archive) {
        out.printf("Archived %,d PUBLISHED event(s) older than %s in %.1f s; the archive holds %,d.%n", total,
            Durations.human(age), seconds, archived);
      } else {
        out.printf("Purged %,d %s older than %s in %.1f s.%n", total, inbox ? "inbox record(s)" : "PUBLISHED event(s)",
            Durations.human(age), seconds);
      }
      out.flush();
    }
    return ExitCodes.OK;
  }
}
