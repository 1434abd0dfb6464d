-- Twinbox schema, version 2: the idempotent inbox. PostgreSQL 12+. Idempotent.

-- One row per (consumer, message id) applied. Written as the first statement of the consumer's
-- transaction, so the row and the business effect commit together. Purged after the retention
-- (the dedup window).
CREATE TABLE IF NOT EXISTS twinbox_inbox (
  consumer     varchar(255) NOT NULL,
  message_id   varchar(255) NOT NULL,
  payload_hash char(64)     NOT NULL,   -- SHA-256 of type, version and payload: spots id reuse
  received_at  timestamptz  NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (consumer, message_id)
);

CREATE INDEX IF NOT EXISTS twinbox_inbox_received ON twinbox_inbox (received_at);

-- Messages a consumer could not process: undecodable, handler failing past its attempts, or an id
-- reused with a different payload. Kept until an operator handles them.
CREATE TABLE IF NOT EXISTS twinbox_inbox_parked (
  id             bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  consumer       varchar(255)  NOT NULL,
  message_id     varchar(255)  NOT NULL,
  type           varchar(255),
  version        int,
  source         varchar(255),
  aggregate_type varchar(255),
  aggregate_id   varchar(255),
  sequence       bigint,
  payload        text,
  headers        jsonb,
  correlation_id varchar(255),
  causation_id   varchar(255),
  traceparent    varchar(55),
  origin         varchar(255),
  payload_hash   char(64),
  reason         varchar(1000) NOT NULL,
  attempts       int           NOT NULL,
  parked_at      timestamptz   NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS twinbox_inbox_parked_consumer ON twinbox_inbox_parked (consumer, parked_at);

-- Failed attempts per message, written in their own short transactions so that a message that
-- kills the consumer's process still moves towards being parked. Deleted once it is handled.
CREATE TABLE IF NOT EXISTS twinbox_inbox_attempt (
  consumer   varchar(255)  NOT NULL,
  message_id varchar(255)  NOT NULL,
  attempts   int           NOT NULL,
  last_error varchar(1000),
  updated_at timestamptz   NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (consumer, message_id)
);
