package io.twinbox.faults;

import java.util.UUID;

/**
 * What the nemesis saw while it played a row's own fault, for that row's check ({@link RowChecks}):
 * figures only the moment of the fault can give (a backlog at the broker's restart, the state of a
 * held aggregate before its failed event is resolved). Immutable.
 */
sealed interface Observation {

  /**
   * C2, C10: the broker was down {@code downMs}; {@code backlog} events were pending when it came
   * back, at {@code restartedAtMillis} (epoch ms, the host's clock, which the local database shares).
   */
  record Outage(long downMs, long backlog, long restartedAtMillis) implements Observation {}

  /**
   * C5: event {@code id} of {@code aggregate} (sequence {@code sequence}) was refused by the broker.
   *
   * @param status its outbox status once the relay was done with it ({@code FAILED} expected)
   * @param attempts its attempts when it reached that status (1 expected: FAILED at once)
   * @param reason its {@code last_error}
   * @param msToFailed from its commit to FAILED
   * @param held later events of its aggregate at the moment of resolution
   * @param heldPending how many of those were still PENDING, none of them attempted
   * @param heldAcked how many of those a relay had published (acked by the broker): must be 0
   * @param probes events written to other aggregates while it was held
   * @param probesPublished how many of those were published before the resolution
   * @param resolved the event was published after the broker's limit was raised and it was retried
   */
  record Rejection(UUID id, String aggregate, long sequence, String status, int attempts, String reason,
      long msToFailed, int held, int heldPending, int heldAcked, int probes, int probesPublished, boolean resolved)
      implements Observation {}

  /** D5, D6: an event whose handler always fails ({@code type}) was written. */
  record Poison(UUID id, String type) implements Observation {}

  /** D7: an event whose handler hangs past the broker's ack wait on its first run was written. */
  record Hang(UUID id) implements Observation {}

  /**
   * D6: the consumers were started again {@code restarts} times after the halting event {@code id}
   * was written, until it was parked ({@code parked}) or the patience ran out.
   */
  record Halts(UUID id, int restarts, boolean parked, long ms) implements Observation {}
}
