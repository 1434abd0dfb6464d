-- Twinbox schema, version 7, PostgreSQL: parked inbox messages as operator objects (issue 17).
-- Idempotent. A parked row gets a state (PARKED, REPLAYING, REPLAYED, DISCARDED) with when and by
-- whom it got there; every operator change and every replay outcome leaves an audit record.

ALTER TABLE twinbox_inbox_parked
  ADD COLUMN IF NOT EXISTS state    varchar(16)  NOT NULL DEFAULT 'PARKED',
  ADD COLUMN IF NOT EXISTS state_at timestamptz,
  ADD COLUMN IF NOT EXISTS state_by varchar(255);

-- Listings, counts and the consumers' replay poll read the open states only.
CREATE INDEX IF NOT EXISTS twinbox_inbox_parked_state ON twinbox_inbox_parked (state, consumer, parked_at);

-- Who did what to a parked message, and when: REPLAY_REQUESTED, REPLAYED, REPLAYED_NOOP,
-- REPLAY_FAILED (detail: the new reason), DISCARDED. Kept as long as the parked row's history matters.
CREATE TABLE IF NOT EXISTS twinbox_inbox_parked_audit (
  id         bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  parked_id  bigint        NOT NULL,
  consumer   varchar(255)  NOT NULL,
  message_id varchar(255)  NOT NULL,
  action     varchar(32)   NOT NULL,
  actor      varchar(255)  NOT NULL,
  detail     varchar(1000),
  at         timestamptz   NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS twinbox_inbox_parked_audit_row ON twinbox_inbox_parked_audit (parked_id, id);
