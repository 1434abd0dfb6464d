package io.twinbox.simulation;

import io.twinbox.spi.OutboxAdminStore.EventSelector;
import io.twinbox.testing.InMemoryStore;
import java.util.List;

/**
 * An operator watching FAILED events, as `twinbox failed list` and `retry` would: each look checks
 * that every FAILED event really spent its attempts (the broker answered RETRY at least
 * {@code maxAttempts} times since it was last retried), and now and then retries them all. Never
 * killed, and never run in between another actor's statements: an operator's command is a
 * transaction of its own between relay rounds.
 */
final class SimOperator implements SimProcess {
  private final SimWorld world;
  private final int maxAttempts;
  private final SimTicker ticker;
  private final List<SimActor> actors;

  SimOperator(SimWorld world, int maxAttempts) {
    this.world = world;
    this.maxAttempts = maxAttempts;
    this.ticker = new SimTicker(world.time);
    this.actors = List.of(new SimActor("operator", this, this::step));
  }

  private String step() {
    List<InMemoryStore.OutboxRow> failed = world.store.outboxRows().stream()
        .filter(r -> r.status().equals("FAILED")).toList();
    if (failed.isEmpty()) {
      return "nothing FAILED";
    }
    for (InMemoryStore.OutboxRow r : failed) {
      world.checks.failedSeen(r.id().toString(), maxAttempts, r.attempts());
    }
    // During chaos an operator is sometimes slow to act; once faults stop, they retry at once.
    if (world.faults.on() && world.random.nextInt(3) != 0) {
      return failed.size() + " FAILED, left for now";
    }
    int n = world.store.retry(EventSelector.allFailed());
    failed.forEach(r -> world.checks.retriedByOperator(r.id().toString()));
    return "retried " + n + " FAILED events";
  }

  @Override
  public String name() {
    return "operator";
  }

  @Override
  public boolean alive() {
    return true;
  }

  @Override
  public void kill() {}

  @Override
  public void restart() {}

  @Override
  public boolean interleaves() {
    return false;
  }

  @Override
  public SimTicker ticker() {
    return ticker;
  }

  @Override
  public List<SimActor> actors() {
    return actors;
  }
}
