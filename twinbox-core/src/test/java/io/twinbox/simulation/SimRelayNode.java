package io.twinbox.simulation;

import io.twinbox.CompletionMode;
import io.twinbox.Relay;
import io.twinbox.RelayListener;
import io.twinbox.RetryPolicy;
import io.twinbox.internal.RelayEngine;
import io.twinbox.spi.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay process: core's {@link RelayEngine} on the in-memory store (every statement a fault
 * point) and a {@link SimTransport}, with no threads of its own — its lease keeper and each worker
 * are actors the world steps. A worker's step is one claim-publish-complete round and handles a
 * failed round as the real worker loop does (it backs off; here: it simply ends its step).
 */
final class SimRelayNode implements SimProcess {
  static final Duration LEASE_TTL = Duration.ofSeconds(2);

  private final SimWorld world;
  private final String name;
  private final Relay.RelayConfig config;
  private final SimTicker ticker;
  private final List<SimActor> actors = new ArrayList<>();
  private RelayEngine engine;
  private boolean alive;
  /** Registered: the threads run only after {@code join}, as {@link RelayEngine#start} starts them. */
  private boolean joined;

  SimRelayNode(SimWorld world, String name, int workers, CompletionMode mode, int maxAttempts) {
    this.world = world;
    this.name = name;
    this.ticker = new SimTicker(world.time);
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(maxAttempts).initialDelay(Duration.ofMillis(10))
        .maxDelay(Duration.ofMillis(200)).jitter(0).build();
    this.config = new Relay.RelayConfig(name, "sim", 20, workers, Duration.ofMillis(100), LEASE_TTL,
        Duration.ofSeconds(5), Duration.ofSeconds(1), retry, mode, false);
    actors.add(new SimActor(name + "/keeper", this, () -> {
      if (!joined) {
        return "not started yet";
      }
      engine.keeperTick();
      return "lease round: holds " + engine.partitions();
    }));
    for (int w = 0; w < workers; w++) {
      int worker = w;
      actors.add(new SimActor(name + "/worker-" + w, this, () -> round(worker)));
    }
  }

  private String round(int worker) throws InterruptedException {
    if (!joined) {
      return "not started yet";
    }
    try {
      RelayEngine.Round r = engine.round(worker);
      return "round: " + r.found() + " claimed" + (r.outage() ? ", broker unavailable" : "");
    } catch (RuntimeException e) {
      return "round failed: " + e.getMessage();
    }
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
    joined = false;
    engine = null;
  }

  @Override
  public void restart() {
    OutboxStore store = SimStores.outbox(world, this, world.store);
    RelayEngine fresh = new RelayEngine(store, new SimTransport(world, this), config, RelayListener.NONE, null,
        ticker);
    alive = true; // its statements are fault points of a live process from here on
    engine = fresh;
    try {
      fresh.joinWithoutThreads();
      joined = true;
    } catch (RuntimeException | SimCrash e) {
      alive = false;
      engine = null;
      world.trace.add(world.time, name, "start failed: " + e.getMessage());
      return;
    }
    world.trace.add(world.time, name, "started");
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
