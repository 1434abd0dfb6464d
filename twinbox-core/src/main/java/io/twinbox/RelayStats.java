package io.twinbox;

/**
 * Counters of one relay since it started. A snapshot: immutable.
 *
 * @param published messages acknowledged and completed
 * @param retried failed attempts that will be retried
 * @param dead messages moved to FAILED (attempts exhausted, rejected by the broker, or undecodable)
 * @param fenced completions refused because the lease was lost (their messages are republished)
 * @param outages waves that hit an unavailable broker
 * @param batches claims that returned work
 * @param partitions partitions held right now
 */
public record RelayStats(
    long published, long retried, long dead, long fenced, long outages, long batches, int partitions) {}
