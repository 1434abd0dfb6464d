package io.twinbox.simulation;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened in a run, step by step: always as a running 64-bit hash (two runs of one seed
 * must end with the same hash), and as lines when asked for (a replayed seed writes them out).
 */
final class SimTrace {
  private final List<String> lines;
  private long hash = 0xcbf29ce484222325L;
  private long steps;

  SimTrace(boolean keepLines) {
    this.lines = keepLines ? new ArrayList<>() : null;
  }

  void add(SimTime time, String who, String what) {
    steps++;
    String line = time.millis() + " ms  " + who + ": " + what;
    for (int i = 0; i < line.length(); i++) {
      hash ^= line.charAt(i);
      hash *= 0x100000001b3L;
    }
    if (lines != null) {
      lines.add(line);
    }
  }

  long hash() {
    return hash;
  }

  long steps() {
    return steps;
  }

  List<String> lines() {
    return lines == null ? List.of() : lines;
  }
}
