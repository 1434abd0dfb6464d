package io.twinbox.simulation;

import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.InboxOrdering;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.InboxRunner;
import io.twinbox.spi.OutboxMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A consumer process reading one partition of the {@link SimBroker} with core's
 * {@link InboxRunner} on the in-memory store (every inbox statement a fault point), Kafka-like:
 * it fetches from its committed offset, and an acknowledgement moves the offset past everything the
 * runner committed. A message fetched again after a crash, a lost acknowledgement or a give-back
 * comes flagged as redelivered, as brokers flag it.
 *
 * <p>The handler applies the message's effect in the consumer's transaction (the in-memory store
 * runs it at commit), fails for good on poison messages, fails once on some others, may kill the
 * process while it runs, and may lose the commit's reply (the transaction stays committed).
 */
final class SimConsumer implements SimProcess {
  static final String GROUP = "payments";
  static final int MAX_ATTEMPTS = 4;
  /** A step that only waits (back-offs) this many times gives the rest of its batch back. */
  private static final int SLEEPS_PER_STEP = 20;

  private final SimWorld world;
  private final int partition;
  private final InboxOrdering ordering;
  private final String name;
  private final SimTicker ticker;
  private final List<SimActor> actors;
  private InboxRunner runner;
  private boolean alive;
  /** The broker's committed offset of this partition. */
  private int offset;
  /** The end of what was ever fetched: below it, a fetch is a redelivery. */
  private int fetchedEnd;

  SimConsumer(SimWorld world, int partition, InboxOrdering ordering) {
    this.ordering = ordering;
    this.world = world;
    this.partition = partition;
    this.name = "consumer-" + partition;
    this.ticker = new SimTicker(world.time);
    this.actors = List.of(new SimActor(name, this, this::step));
  }

  private String step() throws InterruptedException {
    ticker.newStep();
    // As InboxConsumer's loop does on every turn, batch or none.
    int overdue = runner.parkOverdueHeldIfDue();
    List<SimBroker.Delivery> log = world.broker.log(partition);
    if (offset >= log.size()) {
      return overdue > 0 ? "parked " + overdue + " held past gapTimeout" : "idle";
    }
    int base = offset;
    int end = Math.min(log.size(), base + 1 + world.random.nextInt(8));
    List<InboxRunner.Item> items = new ArrayList<>();
    boolean[] redelivered = new boolean[end - base];
    for (int i = base; i < end; i++) {
      InboxMessage m = inboxMessage(log.get(i).message());
      items.add(new InboxRunner.Item(m, null));
      redelivered[i - base] = i < fetchedEnd;
      if (redelivered[i - base]) {
        world.checks.redelivered(m.id());
      }
    }
    fetchedEnd = Math.max(fetchedEnd, end);
    InboxRunner mine = runner;
    int done = mine.processRedeliverable(items, redelivered, (from, to) -> acknowledge(base, to));
    return "fetched [" + base + ", " + end + "), done " + done + ", offset " + offset;
  }

  private void acknowledge(int base, int to) {
    world.requireAlive(this);
    if (world.faults.strikes(world.faults.crash)) {
      world.kill(this, "after a commit, before its acknowledgement");
    }
    if (world.faults.strikes(world.faults.lostAck)) {
      world.injected.add("lost consumer ack");
      return;
    }
    offset = Math.max(offset, base + to);
  }

  private InboxHandler handler() {
    return (connection, m) -> {
      world.checks.handlerRan(m.id());
      if (world.faults.strikes(world.faults.crash)) {
        // The process dies in the handler: the transaction is rolled back, the next fault point ends the step.
        world.killQuietly(this, "in the handler of " + m.id());
        throw new IllegalStateException("simulated: the process died in the handler");
      }
      if (SimWriter.isPoison(m.payload())) {
        throw new IllegalStateException("simulated poison message");
      }
      if (world.checks.failsOnce(m.id(), world.faults)) {
        throw new IllegalStateException("simulated: the handler fails once");
      }
      world.store.onCommit(connection, () -> world.checks.applied(m));
      if (world.faults.strikes(world.faults.lostReply)) {
        world.injected.add("lost commit reply");
        world.store.afterCommit(connection, () -> {
          throw SimWorld.transientError("at the commit (it committed; the reply was lost)");
        });
      }
    };
  }

  static InboxMessage inboxMessage(OutboxMessage m) {
    return new InboxMessage(m.id().toString(), m.type(), m.version(), m.source(), m.aggregateType(),
        m.aggregateId(), m.sequence(), m.payload(), m.headers(), m.correlationId(), m.causationId(),
        m.traceparent(), m.occurredAt(), "sim");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean alive() {
    return alive;
  }

  @Override
  public void kill() {
    alive = false;
    runner = null;
  }

  @Override
  public void restart() {
    Inbox inbox = Inbox.builder(SimStores.inbox(world, this, world.store, world.checks::attemptRefused), GROUP)
        .ordering(ordering).gapTimeout(Duration.ofSeconds(5)).build();
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).initialDelay(Duration.ofMillis(10))
        .maxDelay(Duration.ofMillis(100)).jitter(0).build();
    runner = new InboxRunner(inbox, world.store.dataSource(), handler(), 5, retry,
        () -> alive && ticker.sleepsThisStep() < SLEEPS_PER_STEP, ticker);
    runner.sessionStarted(); // as InboxConsumer does when its source first delivers
    alive = true;
    world.trace.add(world.time, name, "started at offset " + offset);
  }

  @Override
  public SimTicker ticker() {
    return ticker;
  }

  @Override
  public List<SimActor> actors() {
    return actors;
  }

  /** Whether this consumer has acknowledged everything on its partition. */
  boolean caughtUp() {
    return offset >= world.broker.log(partition).size();
  }
}
