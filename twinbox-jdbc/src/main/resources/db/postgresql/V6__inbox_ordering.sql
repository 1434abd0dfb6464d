-- Twinbox schema, version 6, PostgreSQL: the inbox's per-aggregate ordering guard (R17), used
-- only by inboxes built with an ordering (STATE or DELTA). Idempotent.

-- The last applied sequence per (consumer, aggregate), written in the consumer's transaction.
CREATE TABLE IF NOT EXISTS twinbox_inbox_sequence (
  consumer       varchar(255) NOT NULL,
  aggregate_type varchar(255) NOT NULL,
  aggregate_id   varchar(255) NOT NULL,
  last_sequence  bigint       NOT NULL,
  updated_at     timestamptz  NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);

-- DELTA: messages waiting for an earlier sequence of their aggregate (already in twinbox_inbox).
-- The message is kept whole as JSON text, non-ASCII escaped, so anything a broker delivered fits.
CREATE TABLE IF NOT EXISTS twinbox_inbox_held (
  consumer       varchar(255) NOT NULL,
  message_id     varchar(255) NOT NULL,
  aggregate_type varchar(255) NOT NULL,
  aggregate_id   varchar(255) NOT NULL,
  sequence       bigint       NOT NULL,
  message        text         NOT NULL,
  held_at        timestamptz  NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (consumer, message_id)
);

CREATE INDEX IF NOT EXISTS twinbox_inbox_held_aggregate
  ON twinbox_inbox_held (consumer, aggregate_type, aggregate_id, sequence);
CREATE INDEX IF NOT EXISTS twinbox_inbox_held_age ON twinbox_inbox_held (consumer, held_at);
