package io.twinbox.faults;

import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.ExpectedEvent;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Everything a fault run observed, gathered after the full drain, for the {@link FaultChecker}.
 * Each source is independent of the library's own bookkeeping where that is possible: the
 * committed events come from the business table written in the same transaction, the ack journal
 * from the relay's transport decorator, the deliveries from a tap reading the broker from the
 * beginning, the effects from the consumer's business table.
 *
 * <p>Immutable and thread-safe.
 *
 * @param committed events whose transactions committed (from the business table)
 * @param rolledBack ids of events whose transactions rolled back
 * @param deliveries every record of the run's topic, read from the beginning after the drain
 * @param rowStatus outbox status per id after the drain ({@code PENDING}, {@code PUBLISHED},
 *     {@code FAILED}); ids without a row are absent
 * @param acked ids some relay's transport reported as acknowledged by the broker (the ack journal)
 * @param effects how many times the consumer's business effect committed, per id
 * @param appliedOutOfOrder ids whose effect committed after the effect of a later sequence of the
 *     same aggregate (the consumer's apply order)
 * @param parked ids the consumer parked
 * @param poison committed ids written to be unprocessable: they must be parked, never applied
 * @param foreignRecords records on the topic that are not Twinbox events (injected garbage)
 */
public record RunFacts(
    Collection<ExpectedEvent> committed,
    Collection<UUID> rolledBack,
    List<Delivery> deliveries,
    Map<UUID, String> rowStatus,
    Set<UUID> acked,
    Map<UUID, Integer> effects,
    List<UUID> appliedOutOfOrder,
    Set<UUID> parked,
    Set<UUID> poison,
    int foreignRecords) {

  public RunFacts {
    committed = List.copyOf(Objects.requireNonNull(committed, "committed"));
    rolledBack = List.copyOf(Objects.requireNonNull(rolledBack, "rolledBack"));
    deliveries = List.copyOf(Objects.requireNonNull(deliveries, "deliveries"));
    rowStatus = Map.copyOf(Objects.requireNonNull(rowStatus, "rowStatus"));
    acked = Set.copyOf(Objects.requireNonNull(acked, "acked"));
    effects = Map.copyOf(Objects.requireNonNull(effects, "effects"));
    appliedOutOfOrder = List.copyOf(Objects.requireNonNull(appliedOutOfOrder, "appliedOutOfOrder"));
    parked = Set.copyOf(Objects.requireNonNull(parked, "parked"));
    poison = Set.copyOf(Objects.requireNonNull(poison, "poison"));
  }
}
