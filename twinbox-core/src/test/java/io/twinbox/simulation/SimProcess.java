package io.twinbox.simulation;

import java.util.List;

/**
 * A simulated process (a relay node, a consumer, the writer): what a kill -9 takes down as one.
 * Its {@link SimActor actors} are its threads; the world runs them one step at a time.
 */
interface SimProcess {
  String name();

  boolean alive();

  /** kill -9: marks it dead and drops its objects without closing them. */
  void kill();

  /** Starts it again with fresh objects (a new JVM); may fail, then it stays dead. */
  void restart();

  SimTicker ticker();

  /** Whether its actors may run in between another actor's statements (an operator's command does not). */
  default boolean interleaves() {
    return true;
  }

  List<SimActor> actors();
}
