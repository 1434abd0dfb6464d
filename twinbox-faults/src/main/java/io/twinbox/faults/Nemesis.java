package io.twinbox.faults;

import io.twinbox.faults.child.ConsumerMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seeded fault schedule of one run: waits until at least 20% of the expected events are
 * published, then applies the scenario's faults one after another with random gaps, each healed
 * before the next (a dead process restarted, a paused one continued, the proxy passing again).
 * Same seed, same sequence of faults and targets.
 */
final class Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(Nemesis.class);
  /** C2's outage (FAULTS.md: 5 minutes); {@code -Dfaults.outageSeconds} shortens it, and the row says so. */
  static final int DEFAULT_OUTAGE_SECONDS = 300;

  private final FaultRun run;
  private final Scenario scenario;
  private final Random random;
  private final Map<FaultKind, Integer> applied = new EnumMap<>(FaultKind.class);
  private final List<String> log = new ArrayList<>();
  /** The fault actually played when {@link #apply} had to fall back to another kind; else null. */
  private FaultKind substitute;

  Nemesis(FaultRun run, Scenario scenario, long seed) {
    this.run = run;
    this.scenario = scenario;
    this.random = new Random(seed ^ 0x5DEECE66DL);
  }

  /** The planned faults, in order. */
  List<FaultKind> plan() {
    return plan(scenario, run.supported(), random);
  }

  /** The faults {@code scenario} plays where {@code supported} can be, in order; same random, same plan. */
  static List<FaultKind> plan(Scenario scenario, Set<FaultKind> supported, Random random) {
    List<FaultKind> kinds = new ArrayList<>(scenario.kinds());
    kinds.retainAll(supported);
    List<FaultKind> plan = new ArrayList<>();
    if (scenario.eachOnce()) {
      plan.addAll(kinds);
      Collections.shuffle(plan, random);
    } else if (scenario.killFloor() > 0) {
      // E1 as FAULTS.md specifies it: at least killFloor process kills, every other kind twice.
      List<FaultKind> kills = new ArrayList<>(kinds);
      kills.retainAll(FaultKind.KILLS);
      for (int i = 0; i < scenario.killFloor() && !kills.isEmpty(); i++) {
        plan.add(kills.get(random.nextInt(kills.size())));
      }
      for (FaultKind kind : kinds) {
        if (!FaultKind.KILLS.contains(kind)) {
          plan.add(kind);
          plan.add(kind);
        }
      }
      Collections.shuffle(plan, random);
    } else if (!kinds.isEmpty()) {
      for (int i = 0; i < scenario.faults(); i++) {
        plan.add(kinds.get(random.nextInt(kinds.size())));
      }
    }
    return plan;
  }

  /** Runs the schedule; {@code progressed} says when 20% are published. */
  void run(BooleanSupplier progressed, Duration gap) {
    List<FaultKind> plan = plan();
    if (plan.isEmpty()) {
      return;
    }
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (!progressed.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("20% progress not reached in 10 minutes");
      }
      ChildJvm.sleep(100);
    }
    for (FaultKind kind : plan) {
      ChildJvm.sleep((long) (gap.toMillis() * (0.5 + random.nextDouble())));
      long t0 = System.nanoTime();
      String target = apply(kind);
      FaultKind played = substitute == null ? kind : substitute;
      substitute = null;
      String entry = played + " " + target + " " + (System.nanoTime() - t0) / 1_000_000 + "ms";
      LOG.info("nemesis: {}", entry);
      log.add(entry);
      applied.merge(played, 1, Integer::sum);
    }
  }

  private String apply(FaultKind kind) {
    Duration ttl = run.leaseTtl();
    switch (kind) {
      case SLOT_DROP -> {
        for (ChildJvm relay : run.relays()) {
          relay.kill9();
        }
        long ms = run.dropSlot();
        ChildJvm.sleep(200 + random.nextInt(800));
        for (ChildJvm relay : run.relays()) {
          run.restart(relay);
        }
        return "both relays killed, slot dropped (" + ms + "ms), relays restarted";
      }
      case RELAY_KILL -> {
        ChildJvm relay = pick(run.relays());
        relay.kill9();
        ChildJvm.sleep(200 + random.nextInt(800));
        run.restart(relay);
        return relay.name;
      }
      case RELAY_HALT_ACKED -> {
        ChildJvm relay = pick(run.relays());
        boolean halted = run.haltBeforeCompletion(relay);
        if (!halted) {
          substitute = FaultKind.RELAY_KILL;
        }
        ChildJvm.sleep(200 + random.nextInt(800));
        run.restart(relay);
        return relay.name + (halted ? " halted after its broker acks, before completion"
            : " armed for " + FaultRun.HALT_WAIT_SECONDS + " s reached no completion (no leases yet, or nothing "
                + "left to publish): killed -9 instead, counted as relay_kill");
      }
      case RELAY_TERM -> {
        ChildJvm relay = pick(run.relays());
        relay.terminate();
        run.restart(relay);
        return relay.name;
      }
      case RELAY_PAUSE -> {
        ChildJvm relay = pick(run.relays());
        relay.pause(ttl.multipliedBy(3).dividedBy(2));
        return relay.name;
      }
      case CONSUMER_KILL -> {
        ChildJvm consumer = pick(run.consumers());
        consumer.kill9();
        ChildJvm.sleep(200 + random.nextInt(800));
        run.restart(consumer);
        return consumer.name;
      }
      case CONSUMER_TERM -> {
        ChildJvm consumer = pick(run.consumers());
        consumer.terminate();
        run.restart(consumer);
        return consumer.name;
      }
      case CONSUMER_PAUSE -> {
        ChildJvm consumer = pick(run.consumers());
        consumer.pause(Duration.ofSeconds(8)); // past the 6 s session timeout: a rebalance
        return consumer.name;
      }
      case PRODUCER_KILL -> {
        if (run.killProducer(200 + random.nextInt(800))) {
          return "producer";
        }
        substitute = FaultKind.RELAY_KILL;
        ChildJvm relay = pick(run.relays());
        relay.kill9();
        ChildJvm.sleep(200 + random.nextInt(800));
        run.restart(relay);
        return relay.name + " (the producer had written everything: a relay instead)";
      }
      case BROKER_KILL -> {
        run.brokerUnderTest().kill();
        ChildJvm.sleep(3_000 + random.nextInt(4_000));
        run.brokerUnderTest().restart();
        return "broker";
      }
      case DB_RESTART -> {
        run.store().kill();
        long down = 3_000 + random.nextInt(3_000);
        ChildJvm.sleep(down);
        long recovery = run.store().restart();
        return "producer database down " + down + "ms, restart (crash recovery) " + recovery + "ms";
      }
      case DISK_FULL -> {
        return run.store().fillDisk(5_000 + random.nextInt(3_000));
      }
      case DB_TERMINATE -> {
        return "sessions=" + run.terminateRelaySessions();
      }
      case PROXY_RESET -> {
        run.proxy().reset();
        return "relay<->db";
      }
      case PROXY_BLACKHOLE -> {
        run.proxy().blackhole(true);
        try {
          ChildJvm.sleep(ttl.multipliedBy(2).toMillis());
        } finally {
          run.proxy().blackhole(false);
        }
        return "relay<->db " + ttl.multipliedBy(2).toMillis() + "ms";
      }
      case PROXY_LATENCY -> {
        run.proxy().latency(200);
        try {
          ChildJvm.sleep(3_000);
        } finally {
          run.proxy().latency(0);
        }
        return "relay<->db 200ms for 3s";
      }
      case PROXY_DROP_REPLY -> {
        run.proxy().dropReplies(true);
        try {
          ChildJvm.sleep(1_000 + random.nextInt(2_000));
        } finally {
          run.proxy().dropReplies(false);
        }
        return "relay<->db";
      }
      case LONG_TX -> {
        return run.holdLongTransaction(Duration.ofSeconds(8), random.nextLong());
      }
      case POISON_RECORD -> {
        run.destination().injectPoison(random.nextInt());
        return "topic";
      }
      case LINK_RESET -> {
        run.link().reset();
        return "relay<->broker";
      }
      case LINK_BLACKHOLE -> {
        run.link().blackhole(true);
        try {
          ChildJvm.sleep(ttl.multipliedBy(2).toMillis());
        } finally {
          run.link().blackhole(false);
        }
        return "relay<->broker " + ttl.multipliedBy(2).toMillis() + "ms";
      }
      case LINK_LATENCY -> {
        run.link().latency(500);
        try {
          ChildJvm.sleep(3_000);
        } finally {
          run.link().latency(0);
        }
        return "relay<->broker 500ms for 3s";
      }
      case LINK_DROP_ACK -> {
        run.link().dropReplies(true);
        try {
          ChildJvm.sleep(1_000 + random.nextInt(2_000));
        } finally {
          run.link().dropReplies(false);
        }
        return "relay<->broker";
      }
      case BROKER_OUTAGE -> {
        run.brokerUnderTest().kill();
        long down = Duration.ofSeconds(Integer.getInteger("faults.outageSeconds", DEFAULT_OUTAGE_SECONDS)).toMillis();
        ChildJvm.sleep(down);
        long backlog = run.pending();
        run.brokerUnderTest().restart();
        run.observe(new Observation.Outage(down, backlog, System.currentTimeMillis()));
        return "broker down " + down + "ms, " + backlog + " events pending at its restart";
      }
      case BROKER_REJECTS -> {
        return PermanentRejection.play(run, random.nextLong());
      }
      case POISON_THROWS -> {
        UUID id = run.writeEvent(ConsumerMain.THROWS, null, "{\"poison\":\"throws\"}", true);
        run.observe(new Observation.Poison(id, ConsumerMain.THROWS));
        return id.toString();
      }
      case CONSUMER_HALT_COMMITTED -> {
        ChildJvm consumer = pick(run.consumers());
        boolean halted = run.haltAfterCommit(consumer);
        if (!halted) {
          substitute = FaultKind.CONSUMER_KILL;
        }
        ChildJvm.sleep(200 + random.nextInt(800));
        run.restart(consumer);
        return consumer.name + (halted ? " halted after a commit, before its ack"
            : " armed for " + FaultRun.HALT_WAIT_SECONDS + " s reached no commit: killed -9 instead, counted as"
                + " consumer_kill");
      }
      case HANGING_HANDLER -> {
        UUID id = run.writeEvent(ConsumerMain.HANG, null, "{\"hang\":true}", false);
        run.observe(new Observation.Hang(id));
        return id.toString();
      }
      case POISON_HALT -> {
        return HaltingPoison.play(run);
      }
      default -> throw new IllegalStateException("unknown fault " + kind);
    }
  }

  private ChildJvm pick(List<ChildJvm> children) {
    return children.get(random.nextInt(children.size()));
  }

  Map<FaultKind, Integer> applied() {
    return applied;
  }

  List<String> log() {
    return log;
  }
}
