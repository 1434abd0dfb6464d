package io.twinbox;

/**
 * Counters of one WAL relay ({@link RelayMode#WAL}) since it started, beside its {@link RelayStats};
 * from {@link Relay#walStats()}. A snapshot: immutable.
 *
 * @param streamed events published from the replication stream
 * @param swept events published by the sweep (the polling claim over the table: rows the stream
 *     left there, held aggregates, rows older than the stream)
 * @param confirms positions confirmed to the server (each a forward move of the slot)
 * @param withheldConfirms confirmations not sent because the stream lease was no longer valid (a
 *     relay that lost it)
 * @param sessions stream sessions opened: 1, plus one per reconnect or take-over
 * @param replayedDone events the stream received again after a start, a reconnect or a take-over and
 *     did not publish, because the table showed them published already: what the previous streamer
 *     completed but had not confirmed to the server
 */
public record WalStats(long streamed, long swept, long confirms, long withheldConfirms, long sessions,
    long replayedDone) {}
