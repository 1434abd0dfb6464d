-- Twinbox, opt-in: the layout of the outbox partitioned by time (see P1__outbox_by_time.sql and
-- docs/partitioned-outbox.md). PostgreSQL 13+. Idempotent. Applied first so that the layout can be
-- set (JdbcStore.Builder.partitionedOutbox(interval, ahead), `migrate --partition-interval`) before
-- P1 creates the first partitions.

-- How partitions are cut: interval_seconds (aligned to multiples since the Unix epoch, UTC) and how
-- many partitions ahead of the current one maintenance keeps. One row. JdbcStore and the CLI take
-- intervals of a minute or more; the table takes seconds so that tests can cross boundaries fast.
CREATE TABLE IF NOT EXISTS twinbox_outbox_partitioning (
  singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  interval_seconds bigint  NOT NULL DEFAULT 86400 CHECK (interval_seconds >= 1),
  ahead            int     NOT NULL DEFAULT 3 CHECK (ahead BETWEEN 1 AND 1000)
);
INSERT INTO twinbox_outbox_partitioning DEFAULT VALUES ON CONFLICT (singleton) DO NOTHING;
