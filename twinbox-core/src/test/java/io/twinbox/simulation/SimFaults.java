package io.twinbox.simulation;

import java.util.Random;

/**
 * How often each fault strikes in one run, drawn from the seed: a third of the seeds are calm
 * (few faults, long stretches of normal work), a third moderate, a third wild. Every draw comes
 * from the run's one {@link Random}, in the order the run asks, so the faults replay with the seed.
 * Off while the run drains.
 */
final class SimFaults {
  /** Per fault point: a store statement, a broker send, a commit, an acknowledgement. */
  final double storeError;
  final double lostReply;
  final double slowCall;
  final double interleave;
  final double crash;
  /** Per broker send. */
  final double sendRetry;
  final double sendUnavailable;
  final double lostAck;
  /** Per top-level step. */
  final double processKill;
  final double restart;
  final double hostClockJump;
  final double databaseClockJump;
  /** Per event, with scarce attempts: the broker keeps refusing it (RETRY) at {@link #troubledRetry}. */
  final double troubledEvent;
  final double troubledRetry;
  /** Per message: its handler fails once before it succeeds. */
  final double handlerFailsOnce;

  private final Random random;
  private boolean on = true;

  /** @param scarceAttempts whether one event in ten is troubled: the broker keeps answering RETRY to it */
  SimFaults(Random random, boolean scarceAttempts) {
    this.random = random;
    double scale = switch (random.nextInt(3)) {
      case 0 -> 0.2;
      case 1 -> 1.0;
      default -> 3.0;
    };
    storeError = 0.01 * scale;
    lostReply = 0.005 * scale;
    slowCall = 0.01 * scale;
    interleave = 0.05 * scale;
    crash = 0.002 * scale;
    sendRetry = 0.01 * scale;
    troubledEvent = scarceAttempts ? 0.1 : 0;
    troubledRetry = 0.6;
    sendUnavailable = 0.005 * scale;
    lostAck = 0.005 * scale;
    processKill = 0.004 * scale;
    restart = 0.05;
    hostClockJump = 0.002 * scale;
    // A database clock that steps forward past the lease TTL lets a second relay take a partition
    // while its holder still publishes: only some seeds play it (and then exclusivity is not judged).
    databaseClockJump = random.nextInt(4) == 0 ? 0.001 * scale : 0;
    handlerFailsOnce = 0.05 * scale;
  }

  /** True with probability {@code p} while faults are on. */
  boolean strikes(double p) {
    return on && p > 0 && random.nextDouble() < p;
  }

  void off() {
    on = false;
  }

  boolean on() {
    return on;
  }
}
