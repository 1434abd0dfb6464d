-- Twinbox schema, version 5, MariaDB 10.6+: the inbox's per-aggregate ordering guard (R17), used
-- only by inboxes built with an ordering (STATE or DELTA). Idempotent. Times are UTC.

-- The last applied sequence per (consumer, aggregate), written in the consumer's transaction.
CREATE TABLE IF NOT EXISTS twinbox_inbox_sequence (
  consumer       VARCHAR(255) NOT NULL,
  aggregate_type VARCHAR(255) NOT NULL,
  aggregate_id   VARCHAR(255) NOT NULL,
  last_sequence  BIGINT       NOT NULL,
  updated_at     DATETIME(6)  NOT NULL DEFAULT UTC_TIMESTAMP(6),
  PRIMARY KEY (consumer, aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- DELTA: messages waiting for an earlier sequence of their aggregate (already in twinbox_inbox).
-- The message is kept whole as JSON text, non-ASCII escaped, so anything a broker delivered fits.
CREATE TABLE IF NOT EXISTS twinbox_inbox_held (
  consumer       VARCHAR(255) NOT NULL,
  message_id     VARCHAR(255) NOT NULL,
  aggregate_type VARCHAR(255) NOT NULL,
  aggregate_id   VARCHAR(255) NOT NULL,
  sequence       BIGINT       NOT NULL,
  message        LONGTEXT     NOT NULL,
  held_at        DATETIME(6)  NOT NULL DEFAULT UTC_TIMESTAMP(6),
  PRIMARY KEY (consumer, message_id),
  KEY twinbox_inbox_held_aggregate (consumer, aggregate_type, aggregate_id, sequence),
  KEY twinbox_inbox_held_age (consumer, held_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
