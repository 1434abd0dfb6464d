package io.twinbox.cli;

import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedState;
import io.twinbox.cli.internal.Durations;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The filter options of the {@code twinbox parked} commands, and how a parked message is shown. */
final class ParkedOptions {
  @Option(names = "--consumer", paramLabel = "NAME", description = "Only this consumer's messages.")
  String consumer;
  @Option(names = "--reason", paramLabel = "TEXT", description = "Only messages whose reason contains TEXT"
      + " (case-insensitive).")
  String reason;
  @Option(names = "--older-than", paramLabel = "AGE", description = "Only messages parked longer ago than AGE"
      + " (500ms, 30s, 5m, 2h, 30d or PT5M).")
  String olderThan;
  @Option(names = "--aggregate", paramLabel = "TYPE[:ID]", description = "Only this aggregate type, or one"
      + " aggregate; split at the first ':'.")
  String aggregate;
  @Option(names = "--limit", defaultValue = "50", paramLabel = "N",
      description = "At most N messages, 1 to 10000 (default ${DEFAULT-VALUE}).")
  int limit;

  /** True when some criterion narrows the selection (a bulk change needs one). */
  boolean narrowed() {
    return consumer != null || reason != null || olderThan != null || aggregate != null;
  }

  /** The filter on {@code states}; a bad value is a usage error (exit 2) naming the option. */
  ParkedFilter filter(CommandSpec spec, Set<ParkedState> states) {
    try {
      ParkedFilter f = (states.isEmpty() ? ParkedFilter.open() : ParkedFilter.any().states(states)).limit(limit);
      if (consumer != null) {
        f = f.consumer(consumer);
      }
      if (reason != null) {
        f = f.reasonContains(reason);
      }
      if (olderThan != null) {
        f = f.olderThan(Durations.parse("--older-than", olderThan));
      }
      if (aggregate != null) {
        int colon = aggregate.indexOf(':');
        f = colon < 0 ? f.aggregate(aggregate, null)
            : f.aggregate(aggregate.substring(0, colon), colon == aggregate.length() - 1 ? null
                : aggregate.substring(colon + 1));
      }
      return f;
    } catch (IllegalArgumentException e) {
      String message = e.getMessage().replace("limit must", "--limit must").replace("reasonContains", "--reason")
          .replace("aggregateType", "--aggregate's type").replace("aggregateId", "--aggregate's id")
          .replace("consumer must", "--consumer must");
      throw new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  /** {@code --state} values: empty means the open ones (PARKED and REPLAYING). */
  static Set<ParkedState> states(List<ParkedState> given) {
    return given == null || given.isEmpty() ? EnumSet.noneOf(ParkedState.class) : EnumSet.copyOf(given);
  }

  /** A parked message as JSON: every field, the payload only when there. */
  static Map<String, Object> json(ParkedMessage p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", p.id());
    m.put("consumer", p.consumer());
    m.put("messageId", p.messageId());
    m.put("state", p.state().name());
    m.put("stateAt", p.stateAt() == null ? null : p.stateAt().toString());
    m.put("stateBy", p.stateBy());
    m.put("type", p.type());
    m.put("version", p.version());
    m.put("source", p.source());
    m.put("aggregateType", p.aggregateType());
    m.put("aggregateId", p.aggregateId());
    m.put("sequence", p.sequence());
    m.put("reason", p.reason());
    m.put("attempts", p.attempts());
    m.put("parkedAt", p.parkedAt() == null ? null : p.parkedAt().toString());
    m.put("headers", p.headers());
    m.put("correlationId", p.correlationId());
    m.put("causationId", p.causationId());
    m.put("traceparent", p.traceparent());
    m.put("origin", p.origin());
    m.put("payloadHash", p.payloadHash());
    m.put("payloadStored", p.payloadStored());
    if (p.payload() != null) {
      m.put("payload", p.payload());
    }
    return m;
  }

  /** The operator's name for the audit record: {@code --by}, else {@code cli:<OS user>}. */
  static String by(String given) {
    return given != null ? given : "cli:" + System.getProperty("user.name", "unknown");
  }
}
