package io.twinbox.simulation;

import io.twinbox.CompletionMode;
import io.twinbox.InboxOrdering;
import io.twinbox.OutboxStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One seeded run of core's engine: a writer, 1–3 relay nodes (lease keeper and 1–2 workers each)
 * and 1–3 consumers on the in-memory store and a simulated broker, all stepped by one seeded
 * scheduler on simulated time. First a chaos phase (faults at every statement and send, kills and
 * restarts, clock jumps), then the faults stop, every dead process restarts and the run drains;
 * then {@link SimChecks} judges it. The seed decides everything: the shape of the setup, the
 * schedule, every fault; the same seed gives the same trace.
 */
final class Simulation {
  /** The outcome of one seed. */
  record Result(long seed, String setup, SimVerdict verdict, long traceHash, long steps, SimCounts injected,
      List<String> trace) {}

  private static final int DRAIN_ROUNDS = 3_000;

  private Simulation() {}

  static Result run(long seed, boolean keepTrace) {
    Random shape = new Random(~seed);
    int partitions = 2 + shape.nextInt(7);
    int brokerPartitions = 1 + shape.nextInt(3);
    int nodes = 1 + shape.nextInt(3);
    int workers = 1 + shape.nextInt(2);
    CompletionMode mode = shape.nextBoolean() ? CompletionMode.MARK : CompletionMode.DELETE;
    int events = 30 + shape.nextInt(90);
    int aggregates = 2 + shape.nextInt(6);
    int chaosSteps = 200 + shape.nextInt(400);
    // A third of the seeds run the inbox's ordering guard for delta events, without poison: with
    // nothing missing, it must never hold a message for good nor skip one.
    InboxOrdering ordering = shape.nextInt(3) == 0 ? InboxOrdering.DELTA : InboxOrdering.NONE;
    // A third of the seeds give the relays 3 attempts and make one event in ten troubled (the broker
    // answers it RETRY 6 times in 10): events go FAILED, hold their aggregates, an operator retries them.
    boolean scarce = shape.nextInt(3) == 0;
    int relayAttempts = scarce ? 3 : 1_000;
    String setup = nodes + " relays x " + workers + " workers, " + partitions + " partitions, " + brokerPartitions
        + " consumers, " + mode + ", " + events + " events over " + aggregates + " aggregates, " + chaosSteps
        + " chaos steps, inbox ordering " + ordering + ", relay maxAttempts " + relayAttempts;

    SimWorld world = new SimWorld(seed, partitions, brokerPartitions, scarce, keepTrace);
    SimWriter writer = new SimWriter(world, events, aggregates, ordering == InboxOrdering.NONE);
    List<SimProcess> killable = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      killable.add(new SimRelayNode(world, "relay-" + n, workers, mode, relayAttempts));
    }
    List<SimConsumer> consumers = new ArrayList<>();
    for (int p = 0; p < brokerPartitions; p++) {
      consumers.add(new SimConsumer(world, p, ordering));
    }
    killable.addAll(consumers);
    world.processes.add(writer);
    world.processes.add(new SimOperator(world, relayAttempts));
    world.processes.addAll(killable);
    killable.forEach(SimProcess::restart);

    for (int i = 0; i < chaosSteps; i++) {
      world.time.advance(Duration.ofMillis(world.random.nextInt(40)));
      chaosStep(world, killable);
    }

    world.faults.off();
    String notDrained = drain(world, writer, killable, consumers);
    SimVerdict verdict = world.checks.verdict(world, notDrained == null, notDrained);
    return new Result(seed, setup, verdict, world.trace.hash(), world.trace.steps(), world.injected,
        world.trace.lines());
  }

  private static void chaosStep(SimWorld world, List<SimProcess> killable) {
    SimFaults f = world.faults;
    List<SimProcess> dead = new ArrayList<>();
    List<SimProcess> live = new ArrayList<>();
    for (SimProcess p : killable) {
      (p.alive() ? live : dead).add(p);
    }
    if (f.strikes(f.processKill)) {
      if (!live.isEmpty()) {
        world.killQuietly(live.get(world.random.nextInt(live.size())), "by the scheduler, between steps");
      }
    } else if (!dead.isEmpty() && f.strikes(f.restart)) {
      dead.get(world.random.nextInt(dead.size())).restart();
    } else if (f.strikes(f.hostClockJump)) {
      SimProcess p = killable.get(world.random.nextInt(killable.size()));
      Duration by = Duration.ofMillis(100 + world.random.nextInt(5_000));
      p.ticker().jump(by);
      world.injected.add("host clock jump");
      world.trace.add(world.time, p.name(), "host clock jumps " + by.toMillis() + " ms");
    } else if (f.strikes(f.databaseClockJump)) {
      Duration by = Duration.ofMillis(500 + world.random.nextInt(4_000));
      world.time.jumpDatabase(by);
      world.checks.databaseClockJumped();
      world.injected.add("database clock jump");
      world.trace.add(world.time, "database", "clock jumps " + by.toMillis() + " ms");
    } else {
      List<SimActor> ready = new ArrayList<>();
      for (SimProcess p : world.processes) {
        for (SimActor a : p.actors()) {
          if (world.runnable(a)) {
            ready.add(a);
          }
        }
      }
      if (!ready.isEmpty()) {
        world.run(ready.get(world.random.nextInt(ready.size())));
      }
    }
  }

  /** Runs every actor in turn, restarting the dead, until all is delivered and applied; null when it drained. */
  private static String drain(SimWorld world, SimWriter writer, List<SimProcess> killable,
      List<SimConsumer> consumers) {
    String why = "";
    for (int round = 0; round < DRAIN_ROUNDS; round++) {
      world.time.advance(Duration.ofMillis(50));
      for (SimProcess p : killable) {
        if (!p.alive()) {
          p.restart();
        }
      }
      for (SimProcess p : world.processes) {
        p.actors().forEach(world::run);
      }
      why = notDrained(world, writer, consumers);
      if (why == null) {
        return null;
      }
    }
    return "not drained after " + DRAIN_ROUNDS + " rounds without faults: " + why;
  }

  private static String notDrained(SimWorld world, SimWriter writer, List<SimConsumer> consumers) {
    if (!writer.done()) {
      return "the writer has events left";
    }
    OutboxStatus status = world.store.status();
    if (status.pending() > 0 || status.retrying() > 0 || status.failed() > 0) {
      return status.pending() + " pending, " + status.retrying() + " retrying, " + status.failed()
          + " FAILED in the outbox";
    }
    if (!world.checks.allDelivered(world.broker)) {
      return "committed events missing on the broker";
    }
    for (SimConsumer c : consumers) {
      if (!c.caughtUp()) {
        return c.name() + " has not acknowledged its partition";
      }
    }
    if (anyHeld(world)) {
      return "messages still held by the ordering guard";
    }
    return null;
  }

  private static boolean anyHeld(SimWorld world) {
    try (Connection c = world.store.dataSource().getConnection()) {
      // Held at any time up to a day ahead: every held message.
      return !world.store.heldLongerThan(c, SimConsumer.GROUP, Duration.ofDays(-1), 1).isEmpty();
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
