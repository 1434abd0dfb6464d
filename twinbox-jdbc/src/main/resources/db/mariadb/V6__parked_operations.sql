-- Twinbox schema, version 6, MariaDB 10.6+: parked inbox messages as operator objects (issue 17).
-- Idempotent. Times are UTC. A parked row gets a state (PARKED, REPLAYING, REPLAYED, DISCARDED)
-- with when and by whom it got there; every operator change and every replay outcome leaves an
-- audit record.

ALTER TABLE twinbox_inbox_parked
  ADD COLUMN IF NOT EXISTS state    VARCHAR(16)  NOT NULL DEFAULT 'PARKED',
  ADD COLUMN IF NOT EXISTS state_at DATETIME(6)  NULL,
  ADD COLUMN IF NOT EXISTS state_by VARCHAR(255) NULL;

-- Listings, counts and the consumers' replay poll read the open states only.
CREATE INDEX IF NOT EXISTS twinbox_inbox_parked_state ON twinbox_inbox_parked (state, consumer, parked_at);

-- Who did what to a parked message, and when: REPLAY_REQUESTED, REPLAYED, REPLAYED_NOOP,
-- REPLAY_FAILED (detail: the new reason), DISCARDED.
CREATE TABLE IF NOT EXISTS twinbox_inbox_parked_audit (
  id         BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  parked_id  BIGINT        NOT NULL,
  consumer   VARCHAR(255)  NOT NULL,
  message_id VARCHAR(255)  NOT NULL,
  action     VARCHAR(32)   NOT NULL,
  actor      VARCHAR(255)  NOT NULL,
  detail     VARCHAR(1000) NULL,
  at         DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  KEY twinbox_inbox_parked_audit_row (parked_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
