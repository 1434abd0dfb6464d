package io.twinbox.simulation;

import io.twinbox.InboxMessage;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.testing.InMemoryStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The run's ledger — what the store committed, what the broker got, what the consumers applied —
 * and the invariants judged on it once the run has drained. Each invariant is a count that must be
 * zero:
 *
 * <ul>
 *   <li><b>lost</b>: a committed event never on the broker; <b>phantom</b>: an event on the broker
 *       that never committed (rolled back);
 *   <li><b>order</b>: an aggregate's first deliveries not in sequence order; <b>apply order</b>: its
 *       effects not applied in sequence order;
 *   <li><b>duplicate effects</b>: a message applied twice; <b>missing effects</b>: a healthy message
 *       never applied (nor parked for a reason it had);
 *   <li><b>parked healthy</b>: a healthy message parked although it could not have spent its
 *       attempts; <b>poison</b>: a poison message applied, not parked, or parked twice;
 *   <li><b>handler runs</b>: a poison message's handler run more often than its attempts allow —
 *       {@code maxAttempts}, plus one per redelivery (a run a crash cut short is not counted) and
 *       one per attempt the store refused to record;
 *   <li><b>sent without lease</b>: a relay sent a message of a partition whose lease it did not
 *       hold on the database's clock (not judged in runs whose database clock jumped);
 *   <li><b>failed early</b>: an event FAILED before the broker answered RETRY {@code maxAttempts}
 *       times (since an operator last retried it);
 *   <li><b>stuck</b>: the run did not drain after faults stopped; <b>unexpected</b>: an exception
 *       escaped a step; <b>failed</b>: an event still FAILED after the drain, where an operator
 *       retries every FAILED event.
 * </ul>
 */
final class SimChecks {
  /** What the writer wrote; {@code aggregate} null for an unordered event. */
  record Written(String id, String aggregate, boolean poison) {}

  private final Map<String, Written> committed = new LinkedHashMap<>();
  private final Set<String> rolledBack = new HashSet<>();
  private final Map<String, Integer> handlerRuns = new HashMap<>();
  private final Map<String, Integer> redeliveries = new HashMap<>();
  private final Map<String, Integer> refusedAttempts = new HashMap<>();
  private final Map<String, Boolean> failOnce = new HashMap<>();
  private final Map<String, Integer> effects = new HashMap<>();
  private final Map<String, List<Long>> applied = new LinkedHashMap<>();
  private final List<String> sentWithoutLease = new ArrayList<>();
  /** Message id → its sequence, as delivered. */
  private final Map<String, Long> sequences = new HashMap<>();
  private boolean databaseClockJumped;
  /** RETRY answers per event since an operator last retried it. */
  private final Map<String, Integer> retries = new HashMap<>();
  private final List<String> failedEarly = new ArrayList<>();
  private int operatorRetries;

  void committed(List<Written> events) {
    events.forEach(w -> committed.put(w.id(), w));
  }

  void rolledBack(List<Written> events) {
    events.forEach(w -> rolledBack.add(w.id()));
  }

  void handlerRan(String id) {
    handlerRuns.merge(id, 1, Integer::sum);
  }

  void redelivered(String id) {
    redeliveries.merge(id, 1, Integer::sum);
  }

  void attemptRefused(String id) {
    refusedAttempts.merge(id, 1, Integer::sum);
  }

  /** Whether this run of the handler fails (some messages fail on their first run, decided once). */
  boolean failsOnce(String id, SimFaults faults) {
    boolean chosen = failOnce.computeIfAbsent(id, k -> faults.strikes(faults.handlerFailsOnce));
    return chosen && handlerRuns.get(id) == 1;
  }

  void applied(InboxMessage m) {
    effects.merge(m.id(), 1, Integer::sum);
    if (m.aggregateId() != null) {
      applied.computeIfAbsent(m.aggregateId(), k -> new ArrayList<>()).add(m.sequence());
    }
  }

  void sentWithoutLease(String node, OutboxMessage m, String holder, long atMillis) {
    sentWithoutLease.add(node + " sent " + m.id() + " (partition " + m.partition() + ") at " + atMillis
        + " ms while the lease was " + (holder == null ? "free or expired" : "held by " + holder));
  }

  private final Map<String, Boolean> troubled = new HashMap<>();

  /** Whether the broker keeps refusing this event (decided once per event). */
  boolean troubled(String id, SimFaults faults) {
    return troubled.computeIfAbsent(id, k -> faults.strikes(faults.troubledEvent));
  }

  void retryAnswered(String id) {
    retries.merge(id, 1, Integer::sum);
  }

  /** An operator saw {@code id} FAILED: it must have been answered RETRY {@code maxAttempts} times. */
  void failedSeen(String id, int maxAttempts, int attempts) {
    int answered = retries.getOrDefault(id, 0);
    if (answered < maxAttempts) {
      failedEarly.add(id + " FAILED with " + attempts + " attempts recorded after " + answered
          + " RETRY answers (maxAttempts " + maxAttempts + ")");
    }
  }

  void retriedByOperator(String id) {
    retries.remove(id);
    operatorRetries++;
  }

  void databaseClockJumped() {
    databaseClockJumped = true;
  }

  int committedCount() {
    return committed.size();
  }

  /** Whether every committed event is on the broker. */
  boolean allDelivered(SimBroker broker) {
    return delivered(broker).keySet().containsAll(committed.keySet());
  }

  private static Map<String, Integer> delivered(SimBroker broker) {
    Map<String, Integer> seen = new HashMap<>();
    for (int p = 0; p < broker.partitions(); p++) {
      for (SimBroker.Delivery d : broker.log(p)) {
        seen.merge(d.message().id().toString(), 1, Integer::sum);
      }
    }
    return seen;
  }

  /** Judges the drained run. */
  SimVerdict verdict(SimWorld world, boolean drained, String notDrained) {
    SimVerdict v = new SimVerdict();
    Map<String, Integer> seen = delivered(world.broker);
    for (int p = 0; p < world.broker.partitions(); p++) {
      world.broker.log(p).forEach(d -> sequences.put(d.message().id().toString(), d.message().sequence()));
    }
    v.figures.add("committed", committed.size());
    v.figures.add("rolled back", rolledBack.size());
    v.figures.add("delivered", seen.values().stream().mapToInt(Integer::intValue).sum());
    v.figures.add("duplicate deliveries", seen.values().stream().mapToInt(n -> n - 1).sum());
    for (String id : committed.keySet()) {
      if (!seen.containsKey(id)) {
        v.violation("lost", id + " committed, never on the broker");
      }
    }
    for (String id : seen.keySet()) {
      if (!committed.containsKey(id)) {
        v.violation("phantom", id + " on the broker, never committed" + (rolledBack.contains(id) ? " (rolled back)" : ""));
      }
    }
    v.figures.add("operator retries", operatorRetries);
    failedEarly.forEach(s -> v.violation("failed early", s));
    judgeOrder(world.broker, v);
    judgeConsumers(world.store, v);
    if (!databaseClockJumped) {
      sentWithoutLease.forEach(s -> v.violation("sent without lease", s));
    }
    if (!drained) {
      v.violation("stuck", notDrained);
    }
    world.unexpected.forEach(s -> v.violation("unexpected", s));
    long failed = world.store.status().failed();
    if (failed > 0) {
      v.violation("failed", failed + " events FAILED");
    }
    return v;
  }

  private void judgeOrder(SimBroker broker, SimVerdict v) {
    for (int p = 0; p < broker.partitions(); p++) {
      Set<String> first = new HashSet<>();
      Map<String, Long> last = new HashMap<>();
      for (SimBroker.Delivery d : broker.log(p)) {
        OutboxMessage m = d.message();
        if (m.aggregateId() == null || !first.add(m.id().toString())) {
          continue;
        }
        Long before = last.put(m.aggregateId(), m.sequence());
        if (before != null && before >= m.sequence()) {
          v.violation("order", m.aggregateId() + ": sequence " + m.sequence() + " first delivered after " + before
              + " (by " + d.node() + " at " + d.atMillis() + " ms)");
        }
      }
    }
    applied.forEach((aggregate, sequences) -> {
      for (int i = 1; i < sequences.size(); i++) {
        if (sequences.get(i) <= sequences.get(i - 1)) {
          v.violation("apply order", aggregate + ": sequence " + sequences.get(i) + " applied after "
              + sequences.get(i - 1));
        }
      }
    });
  }

  /** Where a missing message stands in the inbox: recorded or not, and its aggregate's guard state. */
  private String explain(InMemoryStore store, Written w) {
    boolean recorded = store.inboxRecords(SimConsumer.GROUP).stream().anyMatch(r -> r.messageId().equals(w.id()));
    String text = " (" + (recorded ? "recorded in the inbox" : "not in the inbox");
    if (w.aggregate() != null) {
      try (Connection c = store.dataSource().getConnection()) {
        c.setAutoCommit(false);
        text += "; " + w.aggregate() + ": sequence " + sequenceOf(w.id()) + ", last applied "
            + store.lastSequence(c, SimConsumer.GROUP, "Order", w.aggregate()) + ", held "
            + store.held(c, SimConsumer.GROUP, "Order", w.aggregate()).stream().map(InboxMessage::sequence).toList()
            + ", applied " + applied.getOrDefault(w.aggregate(), List.of()) + nextOf(store, c, w.aggregate());
        c.rollback();
      } catch (SQLException e) {
        text += "; " + e;
      }
    }
    return text + ")";
  }

  /** The fate of the message after the last applied one of {@code aggregate}, which the rest wait for. */
  private String nextOf(InMemoryStore store, Connection c, String aggregate) {
    long next = store.lastSequence(c, SimConsumer.GROUP, "Order", aggregate) + 1;
    for (Written w : committed.values()) {
      if (aggregate.equals(w.aggregate()) && sequenceOf(w.id()) == next) {
        return "; sequence " + next + " is " + w.id() + ": handler ran " + handlerRuns.getOrDefault(w.id(), 0)
            + " times, fails once " + failOnce.getOrDefault(w.id(), false) + ", effects " + effects.getOrDefault(w.id(), 0)
            + ", redelivered " + redeliveries.getOrDefault(w.id(), 0);
      }
    }
    return "; sequence " + next + " was never committed";
  }

  private long sequenceOf(String id) {
    return sequences.getOrDefault(id, -1L);
  }

  private void judgeConsumers(InMemoryStore store, SimVerdict v) {
    Map<String, Integer> parked = new HashMap<>();
    store.parked(SimConsumer.GROUP).forEach(p -> parked.merge(p.message().id(), 1, Integer::sum));
    v.figures.add("parked", parked.values().stream().mapToInt(Integer::intValue).sum());
    Map<String, Long> firstParked = new HashMap<>();
    for (Written w : committed.values()) {
      if (w.aggregate() != null && parked.containsKey(w.id())) {
        firstParked.merge(w.aggregate(), sequenceOf(w.id()), Math::min);
      }
    }
    for (Written w : committed.values()) {
      int applied = effects.getOrDefault(w.id(), 0);
      int parks = parked.getOrDefault(w.id(), 0);
      int runs = handlerRuns.getOrDefault(w.id(), 0);
      int redelivered = redeliveries.getOrDefault(w.id(), 0);
      if (applied > 1) {
        v.violation("duplicate effects", w.id() + " applied " + applied + " times");
      }
      if (parks > 1) {
        v.violation("parked twice", w.id() + " parked " + parks + " times: " + store.parked(SimConsumer.GROUP).stream()
            .filter(p -> p.message().id().equals(w.id())).map(p -> p.reason() + " [attempts " + p.attempts() + "]")
            .toList());
      }
      if (w.poison()) {
        if (applied > 0 || parks == 0) {
          v.violation("poison", w.id() + " is poison: applied " + applied + ", parked " + parks);
        }
        int allowed = SimConsumer.MAX_ATTEMPTS + redelivered + refusedAttempts.getOrDefault(w.id(), 0);
        if (runs > allowed) {
          v.violation("handler runs", w.id() + " (poison) ran " + runs + " times; at most " + allowed + " allowed");
        }
      } else if (parks > 0 && w.aggregate() != null && firstParked.get(w.aggregate()) < sequenceOf(w.id())) {
        // Parked behind an earlier parked sequence of its aggregate: the ordering guard (DELTA)
        // held it past gapTimeout. Legitimate if that first park was.
        continue;
      } else if (parks > 0) {
        // An attempt whose counting statement took effect but lost its reply is counted again: a lost
        // reply can cost a message an attempt it did not spend (documented in docs/consumer.md).
        int couldSpend = redelivered + (failOnce.getOrDefault(w.id(), false) ? 1 : 0)
            + refusedAttempts.getOrDefault(w.id(), 0);
        if (couldSpend < SimConsumer.MAX_ATTEMPTS) {
          v.violation("parked healthy", w.id() + " parked with " + couldSpend + " attempts it could have spent: "
              + store.parked(SimConsumer.GROUP).stream().filter(p -> p.message().id().equals(w.id()))
                  .map(p -> p.reason() + " [attempts " + p.attempts() + "]").toList() + explain(store, w));
        }
      } else if (applied == 0) {
        v.violation("missing effects", w.id() + " never applied, not parked" + explain(store, w));
      }
    }
  }
}
