package io.twinbox.faults;

import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The total-queue checker of FAULTS.md, valid only after a full drain. The broker side (lost,
 * phantom, duplicate deliveries, per-aggregate order of first deliveries, header values) is
 * judged by the testkit's {@link DeliveryChecker}; this class adds what only the whole run can
 * tell: duplicate and missing effects at the consumer, stuck and failed outbox rows, parked
 * messages (healthy ones parked), rows marked published that no broker acknowledged, effects
 * applied out of their aggregate's order, and who lost a missing message.
 *
 * <p>Attribution of a committed message that is not on the broker:
 *
 * <ul>
 *   <li><b>broker</b>: a relay's transport recorded the broker's acknowledgement for it (the ack
 *       journal) — the broker acked and then lost it (FAULTS C9: out of the library's scope);
 *   <li><b>library</b>: no acknowledgement was ever recorded — the row is still pending, failed,
 *       or was marked published or deleted without a send (FAULTS B14).
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class FaultChecker {
  private FaultChecker() {}

  /** Judges one run. */
  public static FaultVerdict check(RunFacts facts) {
    CheckResult broker = DeliveryChecker.check(facts.committed(), facts.rolledBack(),
        facts.deliveries());
    Map<UUID, String> rows = facts.rowStatus();

    List<UUID> lostLibrary = new ArrayList<>();
    List<UUID> lostBroker = new ArrayList<>();
    for (UUID id : broker.lostIds()) {
      (facts.acked().contains(id) ? lostBroker : lostLibrary).add(id);
    }

    Set<UUID> committedIds = new HashSet<>();
    int stuck = 0;
    int failed = 0;
    int published = 0;
    List<UUID> markedNotSent = new ArrayList<>();
    for (ExpectedEvent event : facts.committed()) {
      committedIds.add(event.id());
      String status = rows.get(event.id());
      if ("PENDING".equals(status)) {
        stuck++;
      } else if ("FAILED".equals(status)) {
        failed++;
      } else if ("PUBLISHED".equals(status)) {
        published++;
        if (!facts.acked().contains(event.id())) {
          markedNotSent.add(event.id());
        }
      }
    }

    Set<UUID> delivered = new HashSet<>();
    facts.deliveries().forEach(d -> delivered.add(d.id()));
    int duplicateEffects = 0;
    List<UUID> duplicateEffectIds = new ArrayList<>();
    List<UUID> phantomEffectIds = new ArrayList<>();
    List<UUID> poisonApplied = new ArrayList<>();
    for (Map.Entry<UUID, Integer> e : facts.effects().entrySet()) {
      if (e.getValue() > 1) {
        duplicateEffects += e.getValue() - 1;
        duplicateEffectIds.add(e.getKey());
      }
      if (e.getValue() > 0 && !committedIds.contains(e.getKey())) {
        phantomEffectIds.add(e.getKey());
      }
      if (e.getValue() > 0 && facts.poison().contains(e.getKey())) {
        poisonApplied.add(e.getKey());
      }
    }
    // Delivered to the broker but neither applied nor parked by the consumer (I2), and poison
    // that was not parked (I3).
    List<UUID> unapplied = new ArrayList<>();
    int parkedHealthy = 0;
    for (UUID id : committedIds) {
      if (!delivered.contains(id)) {
        continue;
      }
      boolean poison = facts.poison().contains(id);
      boolean applied = facts.effects().getOrDefault(id, 0) > 0;
      boolean parked = facts.parked().contains(id);
      if (poison ? !parked : !applied && !parked) {
        unapplied.add(id);
      }
      if (!poison && parked) {
        parkedHealthy++;
      }
    }
    return new FaultVerdict(broker, facts.rolledBack().size(), published, lostLibrary, lostBroker,
        duplicateEffects, duplicateEffectIds, phantomEffectIds, poisonApplied, unapplied,
        markedNotSent, stuck, failed, facts.parked().size(), parkedHealthy, facts.appliedOutOfOrder(),
        facts.foreignRecords());
  }
}
