package io.twinbox;

/**
 * Where a {@link Relay} learns of new events.
 *
 * <ul>
 *   <li>{@link #POLLING} (the default): it claims due rows from the outbox table by partition
 *       lease. Works on every store (PostgreSQL and MariaDB); any number of relays share the work.
 *   <li>{@link #WAL}: it streams the outbox's inserts from the database's write-ahead log (PostgreSQL
 *       logical replication with the built-in {@code pgoutput} plugin, through a replication slot).
 *       No polling load and no per-row completion write on the hot path. One relay streams at a
 *       time; the others stand by and take over within the lease TTL. Needs {@code wal_level =
 *       logical}, a role with {@code REPLICATION} and a free replication slot; see the README's
 *       "WAL relay". The table stays the source of truth: switching back to {@code POLLING} at any
 *       time loses nothing.
 * </ul>
 */
public enum RelayMode {
  POLLING,
  WAL
}
