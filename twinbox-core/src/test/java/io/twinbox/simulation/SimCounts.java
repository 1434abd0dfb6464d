package io.twinbox.simulation;

import java.util.Map;
import java.util.TreeMap;

/** Named counters, printed in name order. */
final class SimCounts {
  private final Map<String, Long> counts = new TreeMap<>();

  void add(String name) {
    add(name, 1);
  }

  void add(String name, long n) {
    counts.merge(name, n, Long::sum);
  }

  long get(String name) {
    return counts.getOrDefault(name, 0L);
  }

  void addAll(SimCounts other) {
    other.counts.forEach(this::add);
  }

  @Override
  public String toString() {
    return counts.toString();
  }
}
