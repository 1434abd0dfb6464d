package io.twinbox.internal;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.PartitionLease;
import java.util.HashSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's next batch, claimed while the broker acknowledges the current one, so that the
 * claim's database round trip overlaps the wait for acks instead of following it.
 *
 * <p>The early claim excludes the current batch's positions (its rows stay pending until the batch
 * is completed) and is used only if the current batch came out clean — every message acknowledged,
 * nothing skipped, no outage, no completion fenced — and every lease it was claimed under is still
 * held with the same epoch. Then it holds exactly what a claim after the completion would have
 * returned, less what became due in between: the current batch's failures, the only state change
 * the early claim could not see, did not happen. Otherwise it is dropped and the worker claims
 * afresh; nothing was changed in the database by claiming, so dropping costs nothing.
 *
 * <p>Confined to its worker thread.
 */
final class ClaimAhead {
  private static final Logger log = LoggerFactory.getLogger(ClaimAhead.class);

  private List<OutboxMessage> batch;
  private List<PartitionLease> leases;

  /** Claims the batch after {@code current}; a failure only means there is no early batch. */
  void claim(OutboxStore store, String nodeId, List<PartitionLease> mine, int limit, List<OutboxMessage> current) {
    long[] excluded = new long[current.size()];
    for (int i = 0; i < excluded.length; i++) {
      excluded[i] = current.get(i).position();
    }
    try {
      batch = store.claim(nodeId, mine, limit, excluded);
      leases = mine;
    } catch (RuntimeException e) {
      log.debug("claiming ahead failed; the next round claims again: {}", Reasons.of(e));
      clear();
    }
  }

  /**
   * The early batch if it may be published under {@code mine}, else {@code null}; either way the
   * early batch is gone afterwards.
   */
  List<OutboxMessage> take(List<PartitionLease> mine) {
    List<OutboxMessage> b = batch;
    boolean usable = b != null && new HashSet<>(mine).containsAll(leases);
    clear();
    return usable ? b : null;
  }

  void clear() {
    batch = null;
    leases = null;
  }
}
