-- Twinbox schema: the outbox archive. MariaDB 10.6+. Idempotent: every statement may run again without harm.
-- Times are UTC.
--
-- Retention in archive mode (RetentionSettings.ARCHIVE, `purge --archive`) moves PUBLISHED rows here
-- instead of deleting them, for audit: every column of twinbox_outbox as it was, plus archived_at.
-- Per batch, one transaction: the rows are locked (SELECT ... FOR UPDATE), copied (INSERT ... SELECT)
-- and deleted by their positions, so a batch moves entirely or not at all. No relay reads this table:
-- no pending index, no triggers, no generated columns (partition_no is copied as a plain value), and
-- nothing deletes from it — its retention is the operator's.
CREATE TABLE IF NOT EXISTS twinbox_outbox_archive (
  position        BIGINT        NOT NULL PRIMARY KEY,
  id              VARCHAR(36)   NOT NULL,
  aggregate_type  VARCHAR(255)  NOT NULL,
  aggregate_id    VARCHAR(255)  NULL,
  sequence        BIGINT        NULL,
  partition_no    INT           NOT NULL,
  type            VARCHAR(255)  NOT NULL,
  version         INT           NOT NULL,
  payload         LONGTEXT      NOT NULL,
  headers         TEXT          NOT NULL,
  correlation_id  VARCHAR(255)  NULL,
  causation_id    VARCHAR(255)  NULL,
  traceparent     VARCHAR(55)   NULL,
  occurred_at     DATETIME(6)   NOT NULL,
  created_at      DATETIME(6)   NOT NULL,
  status          VARCHAR(16)   NOT NULL,
  attempts        INT           NOT NULL,
  next_attempt_at DATETIME(6)   NOT NULL,
  last_error      VARCHAR(1000) NULL,
  published_at    DATETIME(6)   NULL,
  dead_letter     VARCHAR(8)    NULL,
  first_failed_at DATETIME(6)   NULL,
  last_failed_at  DATETIME(6)   NULL,
  archived_at     DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  -- Reading the history of one aggregate, in sequence order.
  KEY twinbox_outbox_archive_aggregate (aggregate_type, aggregate_id, sequence)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
