-- Twinbox schema: the outbox archive. PostgreSQL 12+. Idempotent: every statement may run again without harm.
--
-- Retention in archive mode (RetentionSettings.ARCHIVE, `purge --archive`) moves PUBLISHED rows here
-- instead of deleting them, for audit: every column of twinbox_outbox as it was, plus archived_at.
-- One statement per batch (DELETE ... RETURNING feeding the INSERT), so a batch moves entirely or not
-- at all. No relay reads this table: it has no pending index, no triggers, no generated columns
-- (partition_no is copied as a plain value), and nothing deletes from it — its retention is the
-- operator's (e.g. DELETE ... WHERE archived_at < ..., or a DROP of the whole table once exported).
-- Events are not published from here; restore one by hand if ever needed.
CREATE TABLE IF NOT EXISTS twinbox_outbox_archive (
  position        bigint       PRIMARY KEY,
  id              uuid         NOT NULL,
  aggregate_type  varchar(255) NOT NULL,
  aggregate_id    varchar(255),
  sequence        bigint       NOT NULL,
  partition_no    int          NOT NULL,
  type            varchar(255) NOT NULL,
  version         int          NOT NULL,
  payload         jsonb        NOT NULL,
  headers         jsonb        NOT NULL,
  correlation_id  varchar(255),
  causation_id    varchar(255),
  traceparent     varchar(55),
  occurred_at     timestamptz  NOT NULL,
  created_at      timestamptz  NOT NULL,
  status          varchar(16)  NOT NULL,
  attempts        int          NOT NULL,
  next_attempt_at timestamptz  NOT NULL,
  last_error      varchar(1000),
  published_at    timestamptz,
  dead_letter     varchar(8),
  first_failed_at timestamptz,
  last_failed_at  timestamptz,
  archived_at     timestamptz  NOT NULL DEFAULT clock_timestamp()
);

-- Reading the history of one aggregate (`twinbox archive list --aggregate`), in sequence order.
CREATE INDEX IF NOT EXISTS twinbox_outbox_archive_aggregate
  ON twinbox_outbox_archive (aggregate_type, aggregate_id, sequence);
