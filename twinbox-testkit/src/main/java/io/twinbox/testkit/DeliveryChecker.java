package io.twinbox.testkit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Judges what reached the broker against what the test committed and rolled back: lost, phantom,
 * unexpected and duplicate messages, per-aggregate order, and header values. Pure logic: no server.
 *
 * <p>Order is judged on <em>first</em> deliveries only (a redelivery of an event already seen
 * cannot reorder anything a consumer with an inbox applies). All records of one aggregate share a
 * key and therefore a partition, so within each partition the records are put in offset order
 * first; records of different partitions keep the order in which they were given. The first
 * deliveries of each aggregate must then be exactly its committed sequences, ascending: a first
 * delivery is an {@link OrderViolation} when its sequence is not greater than the aggregate's
 * previous first delivery, or when a committed sequence between the two was still undelivered. So
 * a lost event of an aggregate that went on counts once, and two swapped neighbours count twice.
 * Order is judged by the committed sequence of each id; records whose headers disagree with it are
 * reported as {@link HeaderMismatch}es.
 *
 * <p>Stateless and thread-safe.
 */
public final class DeliveryChecker {
  private DeliveryChecker() {}

  /**
   * Checks a delivery log.
   *
   * @param committed the events whose transactions committed (each id once)
   * @param rolledBack the ids of events whose transactions rolled back
   * @param deliveries the records read from the broker, in consumption order
   * @throws IllegalArgumentException when an id is committed twice, or both committed and rolled
   *     back
   */
  public static CheckResult check(Collection<ExpectedEvent> committed,
      Collection<UUID> rolledBack, List<Delivery> deliveries) {
    Map<UUID, ExpectedEvent> expected = new LinkedHashMap<>();
    for (ExpectedEvent event : committed) {
      if (expected.put(event.id(), event) != null) {
        throw new IllegalArgumentException("committed twice: " + event.id());
      }
    }
    Set<UUID> rolledBackIds = new HashSet<>(rolledBack);
    for (UUID id : rolledBackIds) {
      if (expected.containsKey(id)) {
        throw new IllegalArgumentException("both committed and rolled back: " + id);
      }
    }

    Set<UUID> seen = new HashSet<>();
    Set<UUID> phantom = new LinkedHashSet<>();
    Set<UUID> unexpected = new LinkedHashSet<>();
    List<HeaderMismatch> mismatched = new ArrayList<>();
    OrderCheck order = new OrderCheck(expected.values());
    for (Delivery delivery : inPartitionOrder(deliveries)) {
      UUID id = delivery.id();
      ExpectedEvent event = expected.get(id);
      if (event != null && !matches(event, delivery)) {
        mismatched.add(new HeaderMismatch(event, delivery));
      }
      if (!seen.add(id)) {
        continue;
      }
      if (event != null) {
        order.firstDelivery(event, delivery);
      } else if (rolledBackIds.contains(id)) {
        phantom.add(id);
      } else {
        unexpected.add(id);
      }
    }
    List<UUID> lost = expected.keySet().stream().filter(id -> !seen.contains(id)).toList();
    return new CheckResult(expected.size(), deliveries.size(), seen.size(), lost,
        List.copyOf(phantom), List.copyOf(unexpected), deliveries.size() - seen.size(),
        order.violations(), mismatched);
  }

  private static boolean matches(ExpectedEvent event, Delivery delivery) {
    return event.aggregateType().equals(delivery.aggregateType())
        && Objects.equals(event.aggregateId(), delivery.aggregateId())
        && event.sequence() == delivery.sequence();
  }

  /**
   * The deliveries with each partition's records sorted by offset, each record taking a slot that
   * a record of the same partition held: the order across partitions stays as consumed.
   */
  static List<Delivery> inPartitionOrder(List<Delivery> deliveries) {
    Map<String, List<Integer>> slots = new LinkedHashMap<>();
    for (int i = 0; i < deliveries.size(); i++) {
      Delivery d = deliveries.get(i);
      slots.computeIfAbsent(d.topic() + "\u0000" + d.partition(), k -> new ArrayList<>()).add(i);
    }
    Delivery[] ordered = new Delivery[deliveries.size()];
    for (List<Integer> indices : slots.values()) {
      List<Delivery> sorted = indices.stream().map(deliveries::get)
          .sorted(Comparator.comparingLong(Delivery::offset)).toList();
      for (int j = 0; j < indices.size(); j++) {
        ordered[indices.get(j)] = sorted.get(j);
      }
    }
    return List.of(ordered);
  }
}
