package io.twinbox.jdbc;

/**
 * One of Twinbox's replication slots (a logical {@code pgoutput} slot named {@code twinbox…}), as
 * {@link JdbcStore#walSlots()} lists it. Immutable.
 *
 * @param name the slot's name
 * @param database the database it streams
 * @param active whether a relay streams it right now
 * @param activePid the server process streaming it, or 0
 * @param confirmedLsn the position the relay confirmed ({@code confirmed_flush_lsn}), as text
 * @param lagBytes WAL behind the confirmed position, in bytes (-1 if unknown)
 * @param retainedBytes WAL the server keeps for the slot ({@code restart_lsn} to now), in bytes
 * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
 *     (PostgreSQL 13+; empty before)
 */
public record WalSlot(String name, String database, boolean active, int activePid, String confirmedLsn,
    long lagBytes, long retainedBytes, String walStatus) {}
