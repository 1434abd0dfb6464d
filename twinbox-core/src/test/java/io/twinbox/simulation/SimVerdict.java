package io.twinbox.simulation;

import java.util.ArrayList;
import java.util.List;

/** What one run came to: its figures, and its violations (none in a passing run). */
final class SimVerdict {
  final SimCounts figures = new SimCounts();
  final SimCounts violations = new SimCounts();
  /** The first few violations, spelled out. */
  final List<String> examples = new ArrayList<>();

  void violation(String invariant, String detail) {
    violations.add(invariant);
    if (examples.size() < 10) {
      examples.add(invariant + ": " + detail);
    }
  }

  boolean ok() {
    return examples.isEmpty();
  }
}
