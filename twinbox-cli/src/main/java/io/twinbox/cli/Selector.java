package io.twinbox.cli;

import io.twinbox.spi.OutboxAdminStore.EventSelector;
import java.util.UUID;
import picocli.CommandLine.Option;

/** Exactly one of {@code --id}, {@code --aggregate TYPE:ID}, {@code --all-failed}. */
final class Selector {
  @Option(names = "--id", paramLabel = "UUID", required = true, description = "One event, by message id.")
  UUID id;

  @Option(names = "--aggregate", paramLabel = "TYPE:ID", required = true,
      description = "The FAILED events of one aggregate; split at the first ':'.")
  String aggregate;

  @Option(names = "--all-failed", required = true, description = "Every FAILED event.")
  boolean allFailed;

  /** Null when {@code --aggregate} is malformed. */
  EventSelector toSelector() {
    if (id != null) {
      return EventSelector.id(id);
    }
    if (aggregate != null) {
      int colon = aggregate.indexOf(':');
      if (colon <= 0 || colon == aggregate.length() - 1) {
        return null;
      }
      return EventSelector.aggregate(aggregate.substring(0, colon), aggregate.substring(colon + 1));
    }
    return EventSelector.allFailed();
  }

  String describe() {
    return id != null ? "event " + id : aggregate != null ? "aggregate " + aggregate : "all FAILED events";
  }
}
