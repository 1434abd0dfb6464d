package io.twinbox.simulation;

/** One thread of a {@link SimProcess}, as a step the world runs when its scheduler picks it. */
record SimActor(String name, SimProcess process, Step step) {
  @FunctionalInterface
  interface Step {
    /** One iteration of the thread's loop; returns a few words for the trace. */
    String run() throws Exception;
  }

  @Override
  public String toString() {
    return name;
  }
}
