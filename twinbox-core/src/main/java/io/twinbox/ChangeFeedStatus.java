package io.twinbox;

import java.time.Duration;

/**
 * How far a WAL relay's replication slot is behind, reported to {@link
 * RelayListener#changeFeed(ChangeFeedStatus)} every few seconds while the relay streams.
 * Immutable.
 *
 * @param slot the replication slot's name
 * @param confirmedLsn the last position confirmed to the server (everything before it was
 *     published, recorded as FAILED, or left to the table's sweep), as a 64-bit LSN
 * @param lagBytes WAL the server keeps for the slot beyond the confirmed position ({@code
 *     pg_current_wal_lsn() - confirmed_flush_lsn}); -1 when unknown
 * @param lag age of the oldest transaction the relay received but has not confirmed yet; zero when
 *     everything received is confirmed
 * @param sinceConfirm time since the confirmed position last moved forward
 */
public record ChangeFeedStatus(String slot, long confirmedLsn, long lagBytes, Duration lag, Duration sinceConfirm) {}
