-- Twinbox schema, version 3 (MariaDB): outbox rows written by plain SQL meet the Java writer's
-- rules. MariaDB 10.6+. Idempotent. (PostgreSQL's counterpart is its V4.)
--
-- Services in other languages insert outbox rows with plain SQL. MariaDB keeps `id`, `payload` and
-- `headers` as text, so before this script it took anything: an id that is not a UUID, a payload
-- or headers that are not JSON, headers 'null' (what Go's json.Marshal writes for a nil map),
-- reserved headers (ce_* would forge CloudEvents attributes on the wire). The trigger now refuses
-- such rows at INSERT with SQLSTATE 23000 (error 4025, a failed constraint) and a message naming
-- the column and the rule. The relay checks every row it claims by the same rules as well, and
-- moves one that breaks them (stored before this script, or by a writer that sets `sequence`
-- itself) to FAILED with its reason.
--
-- Why a trigger and no CHECK constraints: MariaDB validates a new CHECK constraint against every
-- stored row, rebuilding the table, so rows stored before this script would make it fail; and the
-- Java writer, which already checked every rule, would pay for the JSON parsing on each insert.
-- The trigger does the work only on the plain-SQL path (`sequence` left NULL; the Java writer
-- always sets it).

-- Retention of the supplied-id ledger (Retention.Builder.suppliedIdRetention, 90 days by default)
-- deletes by age.
CREATE INDEX IF NOT EXISTS twinbox_supplied_id_created ON twinbox_supplied_id (created_at);

DROP TRIGGER IF EXISTS twinbox_outbox_sequence;

DELIMITER //
CREATE TRIGGER twinbox_outbox_sequence BEFORE INSERT ON twinbox_outbox FOR EACH ROW
BEGIN
  DECLARE problem VARCHAR(512) DEFAULT NULL;
  DECLARE refusal VARCHAR(128);
  DECLARE header_names LONGTEXT;
  DECLARE header_name LONGTEXT;
  DECLARE header_value LONGTEXT;
  DECLARE n INT DEFAULT 0;
  DECLARE i INT DEFAULT 0;
  DECLARE r CHAR(64);
  DECLARE ms CHAR(12);
  IF NEW.sequence IS NULL THEN
    -- The rules the Java writer checks. The reserved header prefixes are EventRules' (a test
    -- compares the two lists).
    IF NEW.type NOT REGEXP '[^[:space:]]' THEN
      SET problem = 'type: must not be blank';
    ELSEIF NEW.type REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
      SET problem = 'type: contains a control character';
    ELSEIF NEW.aggregate_type NOT REGEXP '[^[:space:]]' THEN
      SET problem = 'aggregate_type: must not be blank';
    ELSEIF NEW.aggregate_type REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
      SET problem = 'aggregate_type: contains a control character';
    ELSEIF NEW.aggregate_id REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
      SET problem = 'aggregate_id: contains a control character';
    ELSEIF NEW.version < 1 THEN
      SET problem = 'version: must be >= 1';
    ELSEIF NEW.correlation_id REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
      SET problem = 'correlation_id: contains a control character';
    ELSEIF NEW.causation_id REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
      SET problem = 'causation_id: contains a control character';
    ELSEIF NEW.traceparent NOT REGEXP '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' THEN
      SET problem = 'traceparent: must be a W3C traceparent (version-traceid-spanid-flags)';
    ELSEIF CHAR_LENGTH(NEW.id) > 0 AND NEW.id NOT REGEXP
        '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' THEN
      SET problem = 'id: is not a UUID (8-4-4-4-12 hexadecimal digits)';
    ELSEIF JSON_VALID(NEW.payload) = 0 THEN
      SET problem = 'payload: is not valid JSON';
    ELSEIF JSON_VALID(NEW.headers) = 0 THEN
      SET problem = 'headers: is not valid JSON';
    ELSEIF NEW.headers IS NOT NULL AND COALESCE(JSON_TYPE(NEW.headers), 'NULL') <> 'OBJECT' THEN
      SET problem = CONCAT('headers: must be a JSON object of string values, is a JSON ',
          LOWER(COALESCE(JSON_TYPE(NEW.headers), 'null')));
    ELSEIF JSON_LENGTH(NEW.headers) > 64 THEN
      SET problem = 'headers: more than 64 entries';
    END IF;
    IF problem IS NULL AND NEW.headers IS NOT NULL THEN
      SET header_names = JSON_KEYS(NEW.headers);
      SET n = JSON_LENGTH(header_names);
      IF n <> JSON_LENGTH(NEW.headers) THEN
        SET problem = 'headers: has a name twice';
      END IF;
      WHILE problem IS NULL AND i < n DO
        SET header_name = JSON_UNQUOTE(JSON_EXTRACT(header_names, CONCAT('$[', i, ']')));
        IF header_name NOT REGEXP '^[A-Za-z0-9][A-Za-z0-9._-]*$' THEN
          SET problem = 'headers: a name must match [A-Za-z0-9][A-Za-z0-9._-]*';
        ELSEIF CHAR_LENGTH(header_name) > 128 THEN
          SET problem = 'headers: a name is longer than 128 characters';
        ELSEIF LOWER(header_name) REGEXP CONCAT('^(ce_|ce-|cloudevents|twinbox|nats-|x-delivery-|x-death|',
            'x-first-death|__typeid__|__keytypeid__|__contenttypeid__|content-type|traceparent|tracestate)') THEN
          SET problem = CONCAT('headers.', LEFT(header_name, 40), ': is reserved');
        ELSE
          SET header_value = JSON_EXTRACT(NEW.headers, CONCAT('$."', header_name, '"'));
          IF JSON_TYPE(header_value) IS NULL OR JSON_TYPE(header_value) <> 'STRING' THEN
            SET problem = 'headers: every value must be a JSON string';
          ELSEIF CHAR_LENGTH(JSON_UNQUOTE(header_value)) > 4096 THEN
            SET problem = CONCAT('headers.', LEFT(header_name, 40), ': value longer than 4096 characters');
          ELSEIF JSON_UNQUOTE(header_value) REGEXP '[\\x{00}-\\x{1f}\\x{7f}]' THEN
            SET problem = CONCAT('headers.', LEFT(header_name, 40), ': value contains a control character');
          END IF;
        END IF;
        SET i = i + 1;
      END WHILE;
    END IF;
    IF problem IS NOT NULL THEN
      SET refusal = LEFT(CONCAT('twinbox_outbox.', problem), 128);
      SIGNAL SQLSTATE '23000' SET MYSQL_ERRNO = 4025, MESSAGE_TEXT = refusal;
    END IF;
    -- A caller-chosen id goes to the supplied-id ledger, as the Java writer's do: a reuse fails
    -- here (1062) even after its event was published and deleted.
    IF CHAR_LENGTH(NEW.id) > 0 THEN
      SET NEW.id = LOWER(NEW.id);
      INSERT INTO twinbox_supplied_id (id) VALUES (NEW.id);
    END IF;
    IF NEW.aggregate_id IS NULL THEN
      SET NEW.sequence = 0;
    ELSE
      INSERT INTO twinbox_aggregate (aggregate_type, aggregate_id, last_sequence)
        VALUES (NEW.aggregate_type, NEW.aggregate_id, LAST_INSERT_ID(1))
        ON DUPLICATE KEY UPDATE last_sequence = LAST_INSERT_ID(last_sequence + 1);
      SET NEW.sequence = LAST_INSERT_ID();
    END IF;
  END IF;
  -- A generated id is a UUIDv7 (48-bit Unix milliseconds, version 7, variant 10, then bits of a
  -- SHA-256 over UUID() and RAND()), as the Java writer's are. MariaDB 10.6 has no UUID_v7().
  -- (CHAR_LENGTH: under a PAD SPACE collation ' ' = '' is true, and a blank id is not an absent one.)
  IF NEW.id IS NULL OR CHAR_LENGTH(NEW.id) = 0 THEN
    SET ms = LOWER(LPAD(HEX(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000), 12, '0'));
    SET r = SHA2(CONCAT(UUID(), RAND()), 256);
    SET NEW.id = CONCAT(SUBSTR(ms, 1, 8), '-', SUBSTR(ms, 9, 4), '-7', SUBSTR(r, 1, 3), '-',
        SUBSTR('89ab', 1 + CONV(SUBSTR(r, 4, 1), 16, 10) % 4, 1), SUBSTR(r, 5, 3), '-', SUBSTR(r, 8, 12));
  END IF;
END//
DELIMITER ;
