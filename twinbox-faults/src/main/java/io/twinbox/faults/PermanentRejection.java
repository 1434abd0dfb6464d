package io.twinbox.faults;

import io.twinbox.TwinboxAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * FAULTS C5: the broker refuses an event for good. The broker's limit is set below the library's
 * ({@link BrokerUnderTest.Destination#limitMessageBytes}: the library takes payloads up to 900 KiB,
 * the topic {@value #LIMIT_BYTES} bytes), an event of {@value #PAYLOAD_BYTES} bytes is written to
 * one of the producer's aggregates and two more events after it. Once the relay has it FAILED, the
 * aggregate is looked at: its later events must all be pending and unpublished, while events of
 * other aggregates (probes written meanwhile) are published. Then the operator's resolution: the
 * limit is raised again and the event retried through {@link TwinboxAdmin#retryEvent}; it and its
 * aggregate's held events are published in order.
 */
final class PermanentRejection {
  static final int LIMIT_BYTES = 32 * 1024;
  static final int PAYLOAD_BYTES = 64 * 1024;
  private static final int PROBES = 5;
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final Duration HOLD = Duration.ofSeconds(3);

  private PermanentRejection() {}

  static String play(FaultRun run, long pick) {
    BrokerUnderTest.Destination destination = run.destination();
    String aggregate = FaultRun.aggregate(pick);
    destination.limitMessageBytes(LIMIT_BYTES);
    UUID refused;
    long written;
    try {
      refused = run.writeEvent("OrderChanged", aggregate, "{\"pad\":\"" + "x".repeat(PAYLOAD_BYTES) + "\"}", false);
      written = System.nanoTime();
      run.writeEvent("OrderChanged", aggregate, "{\"after\":1}", false);
      run.writeEvent("OrderChanged", aggregate, "{\"after\":2}", false);
      FaultRun.OutboxRow row = await(run, refused, "FAILED");
      long msToFailed = (System.nanoTime() - written) / 1_000_000;
      // The aggregate is held: other aggregates' events written now must still be published.
      List<UUID> probes = new ArrayList<>();
      for (int i = 0; i < PROBES; i++) {
        probes.add(run.writeEvent("OrderChanged", "probe-" + Long.toHexString(pick) + "-" + i, "{\"probe\":" + i + "}",
            false));
      }
      long probeDeadline = System.nanoTime() + PATIENCE.toNanos();
      int probesPublished = 0;
      while (System.nanoTime() < probeDeadline) {
        probesPublished = (int) probes.stream().map(run::outboxRow).filter(r -> "PUBLISHED".equals(r.status())).count();
        if (probesPublished == PROBES) {
          break;
        }
        ChildJvm.sleep(100);
      }
      ChildJvm.sleep(HOLD.toMillis());
      List<FaultRun.OutboxRow> later = run.laterRows(aggregate, row.sequence());
      Set<UUID> acked = run.ackedSoFar();
      int pending = (int) later.stream().filter(r -> "PENDING".equals(r.status()) && r.attempts() == 0).count();
      int heldAcked = (int) later.stream().filter(r -> acked.contains(r.id())).count();
      FaultRun.OutboxRow failed = run.outboxRow(refused);
      // The operator's resolution: the broker takes the event again, the event is retried.
      destination.restoreMessageBytes();
      int retried = TwinboxAdmin.of(run.outboxStore()).retryEvent(refused);
      boolean resolved = retried == 1 && "PUBLISHED".equals(await(run, refused, "PUBLISHED").status());
      run.observe(new Observation.Rejection(refused, aggregate, row.sequence(), row.status(), row.attempts(),
          row.lastError(), msToFailed, later.size(), pending, heldAcked, PROBES, probesPublished, resolved));
      return aggregate + " seq " + row.sequence() + " " + row.status() + " after " + row.attempts() + " attempt(s) in "
          + msToFailed + "ms (" + failed.lastError() + "); " + pending + "/" + later.size() + " later events held, "
          + heldAcked + " of them published; probes published " + probesPublished + "/" + PROBES + "; retried: "
          + (resolved ? "published" : "NOT published");
    } finally {
      destination.restoreMessageBytes();
    }
  }

  /** The row once it has {@code status}, or as it is when the patience ran out. */
  private static FaultRun.OutboxRow await(FaultRun run, UUID id, String status) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    FaultRun.OutboxRow row = run.outboxRow(id);
    while (!status.equals(row.status()) && System.nanoTime() < deadline) {
      ChildJvm.sleep(100);
      row = run.outboxRow(id);
    }
    return row;
  }
}
