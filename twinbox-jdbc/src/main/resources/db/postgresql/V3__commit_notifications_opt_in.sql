-- Commit notifications become opt-in.
--
-- The statement trigger of V1 sends NOTIFY twinbox_outbox from every writing transaction. NOTIFY
-- takes one database-wide lock while the transaction commits, so all writing transactions commit
-- one at a time: measured on PostgreSQL 15 with 16 writers, ~400 commits/s with the trigger against
-- ~1,450 without (BENCHMARKS.md). The relay's adaptive polling finds new events within its poll
-- interval (default 100 ms) without it. Services that need the lowest idle latency and write
-- little turn it back on with JdbcStore.setCommitNotifications(true), which runs:
--   ALTER TABLE twinbox_outbox ENABLE TRIGGER twinbox_outbox_notify;
ALTER TABLE twinbox_outbox DISABLE TRIGGER twinbox_outbox_notify;
