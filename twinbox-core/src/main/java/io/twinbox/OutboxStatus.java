package io.twinbox;

import java.time.Duration;
import java.util.Map;

/**
 * A snapshot of an outbox, as operators and health checks see it. Immutable.
 *
 * @param pending rows waiting to be published (due or backing off)
 * @param retrying pending rows that failed at least once and wait for their next attempt
 * @param failed rows in FAILED, each holding back its aggregate until retried or skipped
 * @param heldAggregates aggregates held back by a FAILED or retrying row
 * @param oldestPendingAge age of the oldest pending row, on the database clock; zero when none
 * @param leaseOwners live relay node → number of partitions it holds
 * @param unownedPartitions partitions no live relay holds
 */
public record OutboxStatus(
    long pending,
    long retrying,
    long failed,
    long heldAggregates,
    Duration oldestPendingAge,
    Map<String, Integer> leaseOwners,
    int unownedPartitions) {}
