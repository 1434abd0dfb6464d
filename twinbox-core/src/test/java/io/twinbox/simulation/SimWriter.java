package io.twinbox.simulation;

import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The business process writing events: each step one transaction of 1–3 events over a few hot
 * aggregates (and some unordered events), committed or rolled back. Its own statements are not
 * fault points — a writer's failure is its transaction's failure — but a commit's reply may be
 * lost: the ledger learns what committed from the store's commit itself, not from the writer.
 * Some events are poison to the consumer.
 */
final class SimWriter implements SimProcess {
  private static final String POISON = "{\"poison\":true}";

  private final SimWorld world;
  private final Outbox outbox;
  private final int total;
  private final int aggregates;
  private final boolean poison;
  private final SimTicker ticker;
  private final List<SimActor> actors;
  private int written;

  /** @param poison whether 1 in 25 events is poison to the consumer */
  SimWriter(SimWorld world, int total, int aggregates, boolean poison) {
    this.poison = poison;
    this.world = world;
    this.total = total;
    this.aggregates = aggregates;
    this.ticker = new SimTicker(world.time);
    this.outbox = Outbox.builder(world.store).clock(world.time.database()).build();
    this.actors = List.of(new SimActor("writer", this, this::step));
  }

  static boolean isPoison(String payload) {
    return POISON.equals(payload);
  }

  boolean done() {
    return written >= total;
  }

  private String step() throws SQLException {
    if (done()) {
      return "done";
    }
    int n = 1 + world.random.nextInt(3);
    List<OutboxEvent> events = new ArrayList<>();
    List<SimChecks.Written> facts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      UUID id = new UUID(world.random.nextLong(), world.random.nextLong());
      boolean isPoison = poison && world.random.nextInt(25) == 0;
      OutboxEvent.Builder b = OutboxEvent.builder("OrderPlaced", 1).id(id)
          .payload(isPoison ? POISON : "{\"n\":" + (written + i) + "}");
      String aggregate = null;
      if (world.random.nextInt(10) == 0) {
        b.unordered("Order");
      } else {
        aggregate = "order-" + world.random.nextInt(aggregates);
        b.aggregate("Order", aggregate);
      }
      events.add(b.build());
      facts.add(new SimChecks.Written(id.toString(), aggregate, isPoison));
    }
    boolean rollback = world.random.nextInt(10) == 0;
    try (Connection c = world.store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      outbox.writeAll(c, events);
      world.store.onCommit(c, () -> world.checks.committed(facts));
      if (rollback) {
        c.rollback();
        world.checks.rolledBack(facts);
      } else {
        if (world.faults.strikes(world.faults.lostReply)) {
          world.injected.add("lost writer commit reply");
          world.store.afterCommit(c, () -> {
            throw SimWorld.transientError("at the writer's commit (it committed; the reply was lost)");
          });
        }
        try {
          c.commit();
        } catch (RuntimeException e) {
          // Outcome unknown to the writer; the ledger knows from the commit itself.
        }
      }
    }
    written += n;
    return (rollback ? "rolled back " : "committed ") + n + " events";
  }

  @Override
  public String name() {
    return "writer";
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
  public SimTicker ticker() {
    return ticker;
  }

  @Override
  public List<SimActor> actors() {
    return actors;
  }
}
