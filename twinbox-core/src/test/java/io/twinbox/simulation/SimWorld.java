package io.twinbox.simulation;

import io.twinbox.StoreException;
import io.twinbox.testing.InMemoryStore;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The world one seed runs in: the time line, the faults, the store, the broker, the processes,
 * and the scheduler's one {@link Random}. Only one thread runs at any moment, so a run is a
 * function of its seed.
 *
 * <p><b>Fault points.</b> Every store statement and every broker send of a process goes through
 * {@link #call}: there the process may be killed (before or after the call took effect), the call
 * may be slow (time passes), it may fail before taking effect or after (its reply lost), and other
 * actors may run in between — which is how a relay's round is interleaved with another node's
 * take-over, or with its own lease keeper.
 *
 * <p><b>Interleaving on threads, one at a time.</b> Actors that run "in between" run on a thread of
 * their own while the interrupted one waits for it to finish: locks then behave as they do between
 * threads (a keeper's {@code tryLock} on a worker's lock fails while the worker is in a round), yet
 * only one thread ever runs.
 */
final class SimWorld {
  final long seed;
  final Random random;
  final SimTime time = new SimTime();
  final SimFaults faults;
  final InMemoryStore store;
  final SimBroker broker;
  final SimTrace trace;
  final SimChecks checks = new SimChecks();
  final List<SimProcess> processes = new ArrayList<>();
  private final Set<SimActor> busy = new HashSet<>();
  private final ThreadLocal<SimActor> current = new ThreadLocal<>();
  /** How many interleaved steps are running one inside the other. */
  private int depth;
  /** How many of each fault the run injected, for the report. */
  final SimCounts injected = new SimCounts();
  /** Exceptions that escaped an actor's step: each is a violation. */
  final List<String> unexpected = new ArrayList<>();

  /** @param scarceAttempts whether relays have few attempts and some events are refused (RETRY) again and again */
  SimWorld(long seed, int partitions, int brokerPartitions, boolean scarceAttempts, boolean keepTrace) {
    this.seed = seed;
    this.random = new Random(seed);
    this.faults = new SimFaults(random, scarceAttempts);
    // A step run in between may want a row lock the suspended step holds; that one cannot move on
    // until the nested step ends, so waiting is pointless: fail at once, as a deadlock (40P01).
    this.store = InMemoryStore.create(time.database(), partitions).lockTimeout(Duration.ZERO);
    this.broker = new SimBroker(brokerPartitions, this);
    this.trace = new SimTrace(keepTrace);
  }

  SimActor current() {
    return current.get();
  }

  /** Runs one step of {@code actor} on this thread, unless its process is dead or the actor is already running. */
  void run(SimActor actor) {
    if (!actor.process().alive() || busy.contains(actor)) {
      return;
    }
    SimActor outer = current.get();
    current.set(actor);
    busy.add(actor);
    try {
      String what = actor.step().run();
      trace.add(time, actor.name(), what);
    } catch (SimCrash crash) {
      trace.add(time, actor.name(), crash.getMessage());
    } catch (InterruptedException e) {
      throw new AssertionError("a simulated step was interrupted", e);
    } catch (Exception e) {
      // Each actor catches what its real thread's loop catches; anything else escaped the engine.
      unexpected.add(actor.name() + " at " + time.millis() + " ms: " + e);
      trace.add(time, actor.name(), "UNEXPECTED " + e);
    } finally {
      busy.remove(actor);
      current.set(outer);
    }
  }

  /** Whether {@code actor} could run now: its process is alive and it is not on the stack already. */
  boolean runnable(SimActor actor) {
    return actor.process().alive() && !busy.contains(actor);
  }

  /** A fault point around one store statement or broker send of process {@code p}. */
  <T> T call(SimProcess p, String what, Callable<T> body) throws Exception {
    before(p, what);
    T result = body.call();
    after(p, what);
    return result;
  }

  /** The part of a fault point before the call takes effect. */
  void before(SimProcess p, String what) {
    requireAlive(p);
    if (faults.strikes(faults.interleave)) {
      interleave();
      requireAlive(p);
    }
    if (faults.strikes(faults.slowCall)) {
      slow(what);
    }
    if (faults.strikes(faults.crash)) {
      kill(p, "before " + what);
    }
    if (faults.strikes(faults.storeError)) {
      injected.add("store error");
      throw transientError("before " + what);
    }
  }

  /** The part of a fault point after the call took effect: its reply may be slow or lost, or the process die. */
  void after(SimProcess p, String what) {
    requireAlive(p);
    if (faults.strikes(faults.slowCall)) {
      slow(what + " (reply)");
    }
    if (faults.strikes(faults.crash)) {
      kill(p, "after " + what);
    }
    if (faults.strikes(faults.lostReply)) {
      injected.add("lost reply");
      throw transientError("after " + what + " took effect (reply lost)");
    }
  }

  void requireAlive(SimProcess p) {
    if (!p.alive()) {
      throw new SimCrash("(" + p.name() + " is dead)");
    }
  }

  /** kill -9 of {@code p} from inside one of its own steps: never returns. */
  void kill(SimProcess p, String where) {
    killQuietly(p, where);
    throw new SimCrash(where);
  }

  /** kill -9 of {@code p}, from the scheduler or a fault point. */
  void killQuietly(SimProcess p, String where) {
    if (p.alive()) {
      injected.add("process kill");
      trace.add(time, p.name(), "KILLED " + where);
      p.kill();
    }
  }

  static StoreException transientError(String where) {
    return new StoreException("simulated database trouble " + where,
        new SQLTransientConnectionException("simulated: connection lost", "08006"));
  }

  private void slow(String what) {
    injected.add("slow call");
    // Mostly a hiccup; now and then longer than a lease's TTL.
    long ms = random.nextInt(10) == 0 ? 500 + random.nextInt(3_000) : random.nextInt(200);
    time.advance(Duration.ofMillis(ms));
  }

  /** Other actors run 1–3 steps while the current one waits, each on a thread of its own. */
  private void interleave() {
    injected.add("interleaving");
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      List<SimActor> candidates = new ArrayList<>();
      for (SimProcess p : processes) {
        for (SimActor a : p.actors()) {
          if (p.interleaves() && runnable(a)) {
            candidates.add(a);
          }
        }
      }
      if (candidates.isEmpty()) {
        return;
      }
      runOnOtherThread(candidates.get(random.nextInt(candidates.size())));
    }
  }

  private void runOnOtherThread(SimActor actor) {
    int level = depth++;
    try {
      Future<?> done = NestedThreads.at(level).submit(() -> run(actor));
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while an interleaved step ran", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new AssertionError(e.getCause());
    } finally {
      depth--;
    }
  }
}
