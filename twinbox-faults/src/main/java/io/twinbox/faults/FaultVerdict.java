package io.twinbox.faults;

import io.twinbox.testkit.CheckResult;
import java.util.List;
import java.util.UUID;

/**
 * What the {@link FaultChecker} found in one run. {@link #ok()} holds when every invariant of
 * FAULTS.md is zero: lost, phantom (published or applied), duplicate effects, per-aggregate order
 * violations on the broker and in the consumer's apply order, stuck rows, healthy messages parked,
 * and also no header mismatch, no row marked published without an ack, no delivered message left
 * unapplied and unparked, no poison applied. Duplicate deliveries and parked poison are counted and
 * reported, not judged.
 *
 * <p>Immutable and thread-safe.
 *
 * @param broker the broker-side result of the testkit's delivery checker
 * @param rolledBack how many events were rolled back
 * @param published committed events whose outbox row is marked {@code PUBLISHED}
 * @param lostLibrary lost ids no broker ever acknowledged: the library's fault
 * @param lostBroker lost ids a broker acknowledged: the broker's fault
 * @param duplicateEffects effects beyond the first, summed over all ids
 * @param duplicateEffectIds ids whose effect committed more than once
 * @param phantomEffectIds ids applied by the consumer that never committed
 * @param poisonApplied poison ids whose effect committed
 * @param unapplied committed ids on the broker that the consumer neither applied nor parked
 * @param markedNotSent ids marked {@code PUBLISHED} without a recorded broker acknowledgement
 * @param stuck committed rows still {@code PENDING} after the drain
 * @param failed committed rows in {@code FAILED}
 * @param parked messages the consumer parked
 * @param parkedHealthy parked messages that were not written as poison: their effect never
 *     happened, so a consumer that parks good messages fails the run
 * @param appliedOutOfOrder ids the consumer applied after a later sequence of their aggregate
 * @param foreignRecords non-Twinbox records on the topic (injected garbage)
 */
public record FaultVerdict(
    CheckResult broker,
    int rolledBack,
    int published,
    List<UUID> lostLibrary,
    List<UUID> lostBroker,
    int duplicateEffects,
    List<UUID> duplicateEffectIds,
    List<UUID> phantomEffectIds,
    List<UUID> poisonApplied,
    List<UUID> unapplied,
    List<UUID> markedNotSent,
    int stuck,
    int failed,
    int parked,
    int parkedHealthy,
    List<UUID> appliedOutOfOrder,
    int foreignRecords) {

  public FaultVerdict {
    lostLibrary = List.copyOf(lostLibrary);
    lostBroker = List.copyOf(lostBroker);
    duplicateEffectIds = List.copyOf(duplicateEffectIds);
    phantomEffectIds = List.copyOf(phantomEffectIds);
    poisonApplied = List.copyOf(poisonApplied);
    unapplied = List.copyOf(unapplied);
    markedNotSent = List.copyOf(markedNotSent);
    appliedOutOfOrder = List.copyOf(appliedOutOfOrder);
  }

  public int committed() {
    return broker.committed();
  }

  /** Records read from the broker, duplicates included. */
  public int delivered() {
    return broker.delivered();
  }

  public int lost() {
    return broker.lost();
  }

  /** Rolled-back or unknown ids on the broker, plus ids applied that never committed. */
  public int phantom() {
    return broker.phantom() + broker.unexpected() + phantomEffectIds.size();
  }

  public int duplicateDeliveries() {
    return broker.duplicateDeliveries();
  }

  public int orderViolations() {
    return broker.orderViolations();
  }

  /** Effects the consumer applied after a later sequence of the same aggregate. */
  public int applyOrderViolations() {
    return appliedOutOfOrder.size();
  }

  /** All invariants zero. */
  public boolean ok() {
    return lost() == 0 && phantom() == 0 && duplicateEffects == 0 && orderViolations() == 0
        && stuck == 0 && broker.headerMismatches() == 0 && markedNotSent.isEmpty()
        && unapplied.isEmpty() && poisonApplied.isEmpty() && parkedHealthy == 0
        && appliedOutOfOrder.isEmpty();
  }

  /** The standard result line of FAULTS.md. */
  public String line() {
    return "committed=" + committed() + " rolledBack=" + rolledBack + " published=" + published
        + " delivered=" + delivered() + " lost=" + lost() + " (library=" + lostLibrary.size()
        + " broker=" + lostBroker.size() + ") phantom=" + phantom() + " dupDeliveries="
        + duplicateDeliveries() + " dupEffects=" + duplicateEffects + " orderViol="
        + orderViolations() + " applyOrderViol=" + applyOrderViolations() + " stuck=" + stuck
        + " failed=" + failed + " parked=" + parked + " parkedHealthy=" + parkedHealthy
        + " markedNotSent=" + markedNotSent.size() + " unapplied=" + unapplied.size()
        + " headerMismatches=" + broker.headerMismatches() + " foreign=" + foreignRecords;
  }

  /** The line followed by up to {@code max} examples of each anomaly. */
  public String describe(int max) {
    StringBuilder text = new StringBuilder(line()).append('\n').append(broker.describe(max));
    examples(text, "lost (library)", lostLibrary, max);
    examples(text, "lost (broker)", lostBroker, max);
    examples(text, "duplicate effect", duplicateEffectIds, max);
    examples(text, "phantom effect", phantomEffectIds, max);
    examples(text, "poison applied", poisonApplied, max);
    examples(text, "unapplied", unapplied, max);
    examples(text, "marked published, never acked", markedNotSent, max);
    examples(text, "applied out of order", appliedOutOfOrder, max);
    return text.toString();
  }

  private static void examples(StringBuilder text, String label, List<?> items, int max) {
    for (int i = 0; i < Math.min(max, items.size()); i++) {
      text.append("\n  ").append(label).append(": ").append(items.get(i));
    }
    if (items.size() > max) {
      text.append("\n  ").append(label).append(": ... ").append(items.size() - max).append(" more");
    }
  }

  @Override
  public String toString() {
    return line();
  }
}
