package io.twinbox.faults;

import java.util.EnumSet;
import java.util.Set;

/** What the nemesis can do, each tied to the FAULTS.md rows it exercises. */
public enum FaultKind {
  /** B1, B2: {@code kill -9} a relay, restart it. */
  RELAY_KILL,
  /**
   * B2, forced: a relay halts (as by {@code kill -9}) exactly between the broker's acks of a batch
   * and the statement that marks its rows published; restarted. Polling relays only (the WAL
   * relay's B2 is row G1).
   */
  RELAY_HALT_ACKED,
  /** B3: SIGTERM a relay (graceful), restart it. */
  RELAY_TERM,
  /** B5: SIGSTOP a relay for 1.5 × lease TTL, then SIGCONT (zombie). */
  RELAY_PAUSE,
  /** D1, D2: {@code kill -9} a consumer, restart it. */
  CONSUMER_KILL,
  /** D13: SIGTERM a consumer (group rebalance), restart it. */
  CONSUMER_TERM,
  /** D3, D7: SIGSTOP a consumer past its session timeout, then SIGCONT. */
  CONSUMER_PAUSE,
  /**
   * E1: {@code kill -9} of the producer (the application) mid-write, started again: the outcome
   * of the transactions it had in flight is unknown to it, and what the database recovered is the
   * truth. Once the producer has written everything, a relay is killed instead.
   */
  PRODUCER_KILL,
  /** C1: {@code kill -9} the broker, restart it after an outage. */
  BROKER_KILL,
  /**
   * B9: {@code kill -9} of the producer's database server (postmaster and backends), started again
   * after 3–6 s: crash recovery. Only on a private PostgreSQL cluster of the run (never the shared
   * servers).
   */
  DB_RESTART,
  /**
   * B16: the producer database's disk is full for 5–8 s (a file takes all free space of the
   * cluster's own small tmpfs), then freed; a server that stopped (a WAL write failing is a PANIC)
   * is started again. Only on a private PostgreSQL cluster of the run.
   */
  DISK_FULL,
  /** B8: {@code pg_terminate_backend} (MariaDB: {@code KILL CONNECTION}) every relay session. */
  DB_TERMINATE,
  /** B8: RST on every relay ↔ database connection. */
  PROXY_RESET,
  /** B10: relay ↔ database bytes discarded for 2 × TTL, no RST. */
  PROXY_BLACKHOLE,
  /** B13: 200 ms on every relay ↔ database chunk. */
  PROXY_LATENCY,
  /** B8, C4-like: relay's database requests applied, replies lost (ambiguous mark). */
  PROXY_DROP_REPLY,
  /** B11: a business transaction holds an aggregate's counter row and an outbox row for 8 s. */
  LONG_TX,
  /** D4: a record that is not a CloudEvent is written to the topic; it must be parked. */
  POISON_RECORD,
  /** C7: RST on every relay ↔ broker connection (every broker is reached through a proxy). */
  LINK_RESET,
  /** C11: relay ↔ broker bytes discarded for 2 × TTL, no RST. */
  LINK_BLACKHOLE,
  /** C3: 500 ms on every relay ↔ broker chunk for 3 s. */
  LINK_LATENCY,
  /** C4: publishes reach the broker, its acknowledgements are lost (ambiguous outcome). */
  LINK_DROP_ACK,
  /**
   * G4 (WAL relay rows only): both relays {@code kill -9}, the replication slot dropped while they
   * are down, both started again (each start creates a new slot; the table's rows go out through
   * the sweep).
   */
  SLOT_DROP,
  /**
   * C2: {@code kill -9} the broker and keep it down for the long outage ({@value
   * Nemesis#DEFAULT_OUTAGE_SECONDS} s unless {@code -Dfaults.outageSeconds} says otherwise), then
   * restart it: the relays' attempts must not be spent by it.
   */
  BROKER_OUTAGE,
  /**
   * C5: an event the broker refuses for good (Kafka: larger than the topic's {@code
   * max.message.bytes}, set below the library's own limit) is written to an aggregate, followed by
   * more events of that aggregate; once it is FAILED and its aggregate seen held, the limit is
   * raised again and the event retried by the admin API (the operator's resolution).
   */
  BROKER_REJECTS,
  /** D5: an event whose handler always throws (retriable) is written. */
  POISON_THROWS,
  /**
   * D6: an event whose handler halts the consumer's JVM ({@code Runtime.halt}) is written; dead
   * consumers are started again until it is parked.
   */
  POISON_HALT,
  /**
   * D2, forced: a consumer halts (as by {@code kill -9}) exactly between the commit of a
   * transaction that applied effects and its broker acknowledgement; restarted.
   */
  CONSUMER_HALT_COMMITTED,
  /**
   * D7: an event whose handler hangs 45 s on its first run, longer than the broker waits for the
   * ack (NATS ack wait 30 s): the broker redelivers it to a consumer while the first still holds it.
   */
  HANGING_HANDLER;

  /** The faults that only make sense with the WAL relay ({@link Scenario#walRelay()}). */
  public static final Set<FaultKind> WAL_ONLY = EnumSet.of(SLOT_DROP);

  /** The process kills: E1 plays at least {@link Scenario#killFloor()} of them. */
  public static final Set<FaultKind> KILLS = EnumSet.of(RELAY_KILL, CONSUMER_KILL, PRODUCER_KILL);

  /**
   * The faults only their own row plays (C2, C5, D2 forced, D5, D6, D7): each needs the row's own setting or
   * check, so neither the smoke tier nor E1 draws them.
   */
  public static final Set<FaultKind> ROW_ONLY = EnumSet.of(BROKER_OUTAGE, BROKER_REJECTS, POISON_THROWS, POISON_HALT,
      CONSUMER_HALT_COMMITTED, HANGING_HANDLER);

  /** The faults that only make sense with the polling relay. */
  public static final Set<FaultKind> POLLING_ONLY = EnumSet.of(RELAY_HALT_ACKED);
}
