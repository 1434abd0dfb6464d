-- Twinbox schema, version 1, PostgreSQL 12+.
-- Plain SQL: applied by JdbcStore.migrate() / `twinbox migrate`, or by Flyway/Liquibase as is.
-- Idempotent: every statement may run again without harm.

-- One row per event. Rows are deleted (default) or marked PUBLISHED once the broker acked them.
CREATE TABLE IF NOT EXISTS twinbox_outbox (
  position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id              uuid         NOT NULL DEFAULT gen_random_uuid(),
  aggregate_type  varchar(255) NOT NULL,
  aggregate_id    varchar(255),             -- NULL: an unordered event
  sequence        bigint       NOT NULL,    -- per aggregate, gap-free, in commit order; 0 if unordered
  -- Hash of the aggregate (of the id for unordered events) into 64 partitions, fixed at write.
  -- hashtextextended is immutable and stable across releases (hash partitioning relies on it).
  partition_no    int          NOT NULL GENERATED ALWAYS AS
                    ((hashtextextended(aggregate_type || '/' || coalesce(aggregate_id, id::text), 0) & 63)::int) STORED,
  type            varchar(255) NOT NULL,
  version         int          NOT NULL,
  payload         jsonb        NOT NULL,
  headers         jsonb        NOT NULL DEFAULT '{}',
  correlation_id  varchar(255),
  causation_id    varchar(255),
  traceparent     varchar(55),
  occurred_at     timestamptz  NOT NULL DEFAULT clock_timestamp(),
  created_at      timestamptz  NOT NULL DEFAULT clock_timestamp(),
  status          varchar(16)  NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PUBLISHED', 'FAILED')),
  attempts        int          NOT NULL DEFAULT 0,
  next_attempt_at timestamptz  NOT NULL DEFAULT '-infinity',
  last_error      varchar(1000),
  published_at    timestamptz
);

CREATE UNIQUE INDEX IF NOT EXISTS twinbox_outbox_id ON twinbox_outbox (id);

-- The relay's claim walks this index in position order; it holds pending rows only, so it stays
-- small however much history the table keeps.
CREATE INDEX IF NOT EXISTS twinbox_outbox_pending ON twinbox_outbox (position) WHERE status = 'PENDING';

-- Rows that hold back their aggregate: FAILED, or pending after a failed attempt. Usually empty,
-- so the claim's per-row "is an earlier event of this aggregate held?" probe costs next to nothing.
CREATE INDEX IF NOT EXISTS twinbox_outbox_held ON twinbox_outbox (aggregate_type, aggregate_id, sequence)
  WHERE status = 'FAILED' OR (status = 'PENDING' AND attempts > 0);

-- Rows kept as PUBLISHED (completion mode MARK), for retention.
CREATE INDEX IF NOT EXISTS twinbox_outbox_published ON twinbox_outbox (published_at) WHERE status = 'PUBLISHED';

-- The per-aggregate sequence counter. The writing transaction increments its row, which also
-- serialises writers of one aggregate until commit: commit order = sequence order, no gaps.
-- Rows are never deleted by retention (a reset would make consumers drop newer events).
CREATE TABLE IF NOT EXISTS twinbox_aggregate (
  aggregate_type varchar(255) NOT NULL,
  aggregate_id   varchar(255) NOT NULL,
  last_sequence  bigint       NOT NULL,
  PRIMARY KEY (aggregate_type, aggregate_id)
);

-- Message ids chosen by callers (not generated): kept after their outbox row is deleted, so that a
-- reused id is refused at write time instead of being dropped by every consumer's inbox.
CREATE TABLE IF NOT EXISTS twinbox_supplied_id (
  id         uuid        PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Which relay node may publish which partition, until when (database clock), and the fencing
-- epoch that grows on every take-over.
CREATE TABLE IF NOT EXISTS twinbox_relay_lease (
  partition_no int          PRIMARY KEY,
  owner        varchar(255),
  epoch        bigint       NOT NULL DEFAULT 0,
  lease_until  timestamptz  NOT NULL DEFAULT '-infinity',
  acquired_at  timestamptz
);

INSERT INTO twinbox_relay_lease (partition_no)
  SELECT p FROM generate_series(0, 63) AS p
  ON CONFLICT (partition_no) DO NOTHING;

-- Live relay nodes; their count decides each node's fair share of partitions.
CREATE TABLE IF NOT EXISTS twinbox_relay_node (
  node_id      varchar(255) PRIMARY KEY,
  heartbeat_at timestamptz  NOT NULL,
  started_at   timestamptz  NOT NULL DEFAULT clock_timestamp()
);

-- Writers that insert rows with plain SQL (services in other languages, next to the sidecar relay)
-- may leave `sequence` NULL: this trigger takes it from the aggregate's counter, exactly as the
-- Java writer does in its own statement. The WHEN clause keeps the Java path free of the call.
-- PostgreSQL fills the identity `position` before BEFORE triggers run, i.e. before the counter
-- lock: a writer delayed in between would get a lower position but a higher sequence, and the
-- relay (which walks positions) could publish sequence 2 before 1. So the trigger takes a fresh
-- position after the lock (the first one is left as a gap).
CREATE OR REPLACE FUNCTION twinbox_assign_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.aggregate_id IS NULL THEN
    NEW.sequence := 0;
  ELSE
    INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence)
      VALUES (NEW.aggregate_type, NEW.aggregate_id, 1)
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
      RETURNING last_sequence INTO NEW.sequence;
    NEW.position := nextval(pg_get_serial_sequence('twinbox_outbox', 'position'));
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS twinbox_outbox_sequence ON twinbox_outbox;
CREATE TRIGGER twinbox_outbox_sequence BEFORE INSERT ON twinbox_outbox
  FOR EACH ROW WHEN (NEW.sequence IS NULL) EXECUTE FUNCTION twinbox_assign_sequence();

-- Wakes listening relays when a transaction that inserted events commits (NOTIFY is delivered at
-- commit and never for a rolled-back transaction). One notification per statement; PostgreSQL
-- folds identical ones within a transaction.
CREATE OR REPLACE FUNCTION twinbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('twinbox_outbox', '');
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS twinbox_outbox_notify ON twinbox_outbox;
CREATE TRIGGER twinbox_outbox_notify AFTER INSERT ON twinbox_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION twinbox_notify();
