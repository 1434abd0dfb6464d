package io.twinbox.testkit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Per-aggregate order of first deliveries: each must be greater than the aggregate's previous one,
 * and no committed sequence between the two may still be undelivered. Not thread-safe; one
 * instance per check.
 */
final class OrderCheck {
  private record Aggregate(String type, String id) {}

  /** Committed sequences not yet delivered, per aggregate. */
  private final Map<Aggregate, TreeSet<Long>> pending = new HashMap<>();
  /** The sequence of the aggregate's last first delivery. */
  private final Map<Aggregate, Long> previous = new HashMap<>();
  private final List<OrderViolation> violations = new ArrayList<>();

  OrderCheck(Collection<ExpectedEvent> committed) {
    for (ExpectedEvent event : committed) {
      if (event.ordered()) {
        pending.computeIfAbsent(new Aggregate(event.aggregateType(), event.aggregateId()),
            k -> new TreeSet<>()).add(event.sequence());
      }
    }
  }

  /** Records the first delivery of a committed event; judged by its committed sequence. */
  void firstDelivery(ExpectedEvent event, Delivery delivery) {
    if (!event.ordered()) {
      return;
    }
    Aggregate aggregate = new Aggregate(event.aggregateType(), event.aggregateId());
    long sequence = event.sequence();
    Long before = previous.put(aggregate, sequence);
    TreeSet<Long> missing = pending.get(aggregate);
    if (before != null && sequence <= before) {
      violate(event, delivery, "sequence " + sequence + " delivered after " + before);
    } else {
      // A gap between the previous first delivery and this one: a sequence was skipped. A lost
      // event is reported once, here, not again for every later event of the aggregate.
      Long skipped = missing.lower(sequence);
      if (skipped != null && (before == null || skipped > before)) {
        violate(event, delivery, "sequence " + sequence + " delivered while " + skipped
            + " was still missing");
      }
    }
    missing.remove(sequence);
  }

  List<OrderViolation> violations() {
    return violations;
  }

  private void violate(ExpectedEvent event, Delivery delivery, String reason) {
    violations.add(new OrderViolation(event.aggregateType(), event.aggregateId(), event.sequence(),
        reason, delivery));
  }
}
