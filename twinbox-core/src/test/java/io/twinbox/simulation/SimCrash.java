package io.twinbox.simulation;

/**
 * The simulated process died at this point (kill -9): thrown from a fault point, it unwinds the
 * process's step without running any of its catch blocks for ordinary failures, and the process's
 * objects are dropped without {@code close()}.
 */
final class SimCrash extends Error {
  SimCrash(String where) {
    super("simulated crash " + where, null, false, false);
  }
}
