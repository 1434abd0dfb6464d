-- Twinbox schema, version 2: the idempotent inbox. MariaDB 10.6+. Idempotent.

CREATE TABLE IF NOT EXISTS twinbox_inbox (
  consumer     VARCHAR(255) NOT NULL,
  message_id   VARCHAR(255) NOT NULL,
  payload_hash CHAR(64) CHARACTER SET ascii NOT NULL,
  received_at  DATETIME(6)  NOT NULL DEFAULT UTC_TIMESTAMP(6),
  PRIMARY KEY (consumer, message_id),
  KEY twinbox_inbox_received (received_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS twinbox_inbox_parked (
  id             BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  consumer       VARCHAR(255)  NOT NULL,
  message_id     VARCHAR(255)  NOT NULL,
  type           VARCHAR(255)  NULL,
  version        INT           NULL,
  source         VARCHAR(255)  NULL,
  aggregate_type VARCHAR(255)  NULL,
  aggregate_id   VARCHAR(255)  NULL,
  sequence       BIGINT        NULL,
  payload        LONGTEXT      NULL,
  headers        TEXT          NULL,
  correlation_id VARCHAR(255)  NULL,
  causation_id   VARCHAR(255)  NULL,
  traceparent    VARCHAR(55)   NULL,
  origin         VARCHAR(255)  NULL,
  payload_hash   CHAR(64) CHARACTER SET ascii NULL,
  reason         VARCHAR(1000) NOT NULL,
  attempts       INT           NOT NULL,
  parked_at      DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  KEY twinbox_inbox_parked_consumer (consumer, parked_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS twinbox_inbox_attempt (
  consumer   VARCHAR(255)  NOT NULL,
  message_id VARCHAR(255)  NOT NULL,
  attempts   INT           NOT NULL,
  last_error VARCHAR(1000) NULL,
  updated_at DATETIME(6)   NOT NULL DEFAULT UTC_TIMESTAMP(6),
  PRIMARY KEY (consumer, message_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
