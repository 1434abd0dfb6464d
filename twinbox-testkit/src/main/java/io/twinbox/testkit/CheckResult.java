package io.twinbox.testkit;

import java.util.List;
import java.util.UUID;

/**
 * What the {@link DeliveryChecker} found. {@link #ok()} holds when nothing committed was lost,
 * nothing rolled back or unknown was published, no aggregate's events came out of order and every
 * record carried its event's aggregate and sequence. Duplicates are counted but allowed: the outbox
 * promises at-least-once delivery, not exactly-once.
 *
 * <p>Immutable and thread-safe.
 *
 * @param committed how many committed events were expected
 * @param delivered how many records were read, duplicates included
 * @param distinctDelivered how many distinct message ids were read
 * @param lostIds committed ids never delivered, in the order they were committed
 * @param phantomIds rolled-back ids that were delivered, in order of first delivery
 * @param unexpectedIds delivered ids that were neither committed nor rolled back
 * @param duplicateDeliveries records beyond the first one per message id
 * @param outOfOrder first deliveries of ordered events that came out of sequence
 * @param mismatched records whose aggregate or sequence differs from the committed event
 */
public record CheckResult(
    int committed,
    int delivered,
    int distinctDelivered,
    List<UUID> lostIds,
    List<UUID> phantomIds,
    List<UUID> unexpectedIds,
    int duplicateDeliveries,
    List<OrderViolation> outOfOrder,
    List<HeaderMismatch> mismatched) {

  public CheckResult {
    lostIds = List.copyOf(lostIds);
    phantomIds = List.copyOf(phantomIds);
    unexpectedIds = List.copyOf(unexpectedIds);
    outOfOrder = List.copyOf(outOfOrder);
    mismatched = List.copyOf(mismatched);
  }

  /** Committed events that never reached the broker. */
  public int lost() {
    return lostIds.size();
  }

  /** Rolled-back events that reached the broker. */
  public int phantom() {
    return phantomIds.size();
  }

  /** Distinct ids on the broker that the test never wrote. */
  public int unexpected() {
    return unexpectedIds.size();
  }

  /** Same as {@link #duplicateDeliveries()}. */
  public int duplicates() {
    return duplicateDeliveries;
  }

  /** The number of first deliveries that came out of sequence ({@link #outOfOrder()}). */
  public int orderViolations() {
    return outOfOrder.size();
  }

  /** The number of records with wrong aggregate or sequence values ({@link #mismatched()}). */
  public int headerMismatches() {
    return mismatched.size();
  }

  /** No loss, no phantom, no unexpected id, no order violation, no header mismatch. */
  public boolean ok() {
    return lostIds.isEmpty() && phantomIds.isEmpty() && unexpectedIds.isEmpty()
        && outOfOrder.isEmpty() && mismatched.isEmpty();
  }

  /**
   * One line, e.g. {@code committed=10000 delivered=10012 lost=0 phantom=0 unexpected=0
   * duplicates=12 orderViolations=0 headerMismatches=0}.
   */
  public String summary() {
    return "committed=" + committed + " delivered=" + delivered + " lost=" + lost()
        + " phantom=" + phantom() + " unexpected=" + unexpected() + " duplicates="
        + duplicateDeliveries + " orderViolations=" + outOfOrder.size()
        + " headerMismatches=" + mismatched.size();
  }

  /**
   * The summary followed by up to {@code max} examples of each anomaly, one per line: a message
   * for a failed assertion.
   */
  public String describe(int max) {
    StringBuilder text = new StringBuilder(summary());
    examples(text, "lost", lostIds, max);
    examples(text, "phantom", phantomIds, max);
    examples(text, "unexpected", unexpectedIds, max);
    examples(text, "out of order", outOfOrder, max);
    examples(text, "header mismatch", mismatched, max);
    return text.toString();
  }

  private static void examples(StringBuilder text, String label, List<?> items, int max) {
    for (int i = 0; i < Math.min(max, items.size()); i++) {
      text.append('\n').append("  ").append(label).append(": ").append(items.get(i));
    }
    if (items.size() > max) {
      text.append('\n').append("  ").append(label).append(": ... ")
          .append(items.size() - max).append(" more");
    }
  }

  @Override
  public String toString() {
    return summary();
  }
}
