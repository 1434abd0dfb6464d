-- Twinbox schema, version 1, MariaDB 10.6+ (FOR UPDATE SKIP LOCKED, INSERT ... RETURNING).
-- Plain SQL, applied by JdbcStore.migrate() / `twinbox migrate`, or by Flyway/Liquibase as is
-- (DELIMITER blocks as Flyway reads them). Idempotent. Times are UTC (UTC_TIMESTAMP(6)).

CREATE TABLE IF NOT EXISTS twinbox_outbox (
  position        BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  id              VARCHAR(36)   NOT NULL,   -- VARCHAR: a CHAR value depends on the session (PAD_CHAR_TO_FULL_LENGTH), which a generated column may not
  aggregate_type  VARCHAR(255)  NOT NULL,
  aggregate_id    VARCHAR(255)  NULL,          -- NULL: an unordered event
  sequence        BIGINT        NULL,          -- per aggregate, gap-free; a trigger fills it when NULL
  -- Hash of the aggregate (of the id for unordered events) into 64 partitions, fixed at write. No
  -- string literal in the expression: its collation would come from the session, which MariaDB
  -- refuses in a generated column.
  partition_no    INT AS ((CRC32(CONCAT(aggregate_type, COALESCE(aggregate_id, id))) & 63)) PERSISTENT,
  type            VARCHAR(255)  NOT NULL,
  version         INT           NOT NULL,
  payload         LONGTEXT      NOT NULL,
  headers         TEXT          NOT NULL DEFAULT '{}',
  correlation_id  VARCHAR(255)  NULL,
  causation_id    VARCHAR(255)  NULL,
  traceparent     VARCHAR(55)   NULL,
  occurred_at     DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  created_at      DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  status          VARCHAR(16)   NOT NULL DEFAULT 'PENDING',
  attempts        INT           NOT NULL DEFAULT 0,
  next_attempt_at DATETIME(6)   NOT NULL DEFAULT '1970-01-01 00:00:00',
  last_error      VARCHAR(1000) NULL,
  published_at    DATETIME(6)   NULL,
  CONSTRAINT twinbox_outbox_status CHECK (status IN ('PENDING', 'PUBLISHED', 'FAILED')),
  UNIQUE KEY twinbox_outbox_id (id),
  -- The claim walks pending rows in position order.
  KEY twinbox_outbox_pending (status, position),
  -- "Is an earlier event of this aggregate held back?" — PUBLISHED rows are outside the probe.
  KEY twinbox_outbox_held (aggregate_type, aggregate_id, status, sequence),
  KEY twinbox_outbox_published (status, published_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS twinbox_aggregate (
  aggregate_type VARCHAR(255) NOT NULL,
  aggregate_id   VARCHAR(255) NOT NULL,
  last_sequence  BIGINT       NOT NULL,
  PRIMARY KEY (aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Message ids chosen by callers, kept after their outbox row is deleted: a reused id is refused at
-- write time instead of being dropped by every consumer's inbox.
CREATE TABLE IF NOT EXISTS twinbox_supplied_id (
  id         VARCHAR(36) NOT NULL PRIMARY KEY,
  created_at DATETIME(6) NOT NULL DEFAULT UTC_TIMESTAMP(6)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS twinbox_relay_lease (
  partition_no INT          NOT NULL PRIMARY KEY,
  owner        VARCHAR(255) NULL,
  epoch        BIGINT       NOT NULL DEFAULT 0,
  lease_until  DATETIME(6)  NOT NULL DEFAULT '1970-01-01 00:00:00',
  acquired_at  DATETIME(6)  NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT IGNORE INTO twinbox_relay_lease (partition_no) SELECT seq FROM seq_0_to_63;

CREATE TABLE IF NOT EXISTS twinbox_relay_node (
  node_id      VARCHAR(255) NOT NULL PRIMARY KEY,
  heartbeat_at DATETIME(6)  NOT NULL,
  started_at   DATETIME(6)  NOT NULL DEFAULT UTC_TIMESTAMP(6)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Writers that insert rows with plain SQL may leave `sequence` NULL (and `id` empty): the trigger
-- takes the aggregate's next sequence, exactly as the Java writer does in its own statements.
DROP TRIGGER IF EXISTS twinbox_outbox_sequence;

DELIMITER //
CREATE TRIGGER twinbox_outbox_sequence BEFORE INSERT ON twinbox_outbox FOR EACH ROW
BEGIN
  IF NEW.id IS NULL OR NEW.id = '' THEN
    SET NEW.id = UUID();
  END IF;
  IF NEW.sequence IS NULL THEN
    IF NEW.aggregate_id IS NULL THEN
      SET NEW.sequence = 0;
    ELSE
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
        VALUES (NEW.aggregate_type, NEW.aggregate_id, LAST_INSERT_ID(1))
        ON DUPLICATE KEY UPDATE last_sequence = LAST_INSERT_ID(last_sequence + 1);
      SET NEW.sequence = LAST_INSERT_ID();
    END IF;
  END IF;
END//
DELIMITER ;
