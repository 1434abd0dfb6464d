-- Twinbox, opt-in: the outbox partitioned by time. PostgreSQL 13+ (row triggers on partitioned tables).
-- Applied after the V*.sql scripts by JdbcStore.Builder.partitionedOutbox() + migrate() or
-- `twinbox migrate --partitioned`; Flyway/Liquibase users apply it after V8 and P0__outbox_partitioning.sql. Idempotent: on an
-- outbox that is partitioned already it changes nothing. See docs/partitioned-outbox.md.
--
-- twinbox_outbox becomes PARTITION BY RANGE (created_at), one partition per interval (a day by
-- default), plus a DEFAULT partition that takes rows of a time no partition covers (only when
-- maintenance has not run for longer than the partitions it creates ahead). History leaves by
-- dropping whole partitions whose rows are all PUBLISHED, never by row DELETEs.
--
-- What changes against the plain table:
--   - The primary key is (position, created_at): PostgreSQL requires every unique index of a
--     partitioned table to include the partition key. position stays unique (one identity sequence).
--   - The unique index on id cannot exist (it would have to include created_at). Ids stay unique
--     as follows: generated ids are UUIDv7 (48-bit milliseconds + 74 random bits) from the Java writer
--     or twinbox_uuid_v7(); a caller-chosen id is first inserted into twinbox_supplied_id, whose
--     primary key refuses a reused id (23505 on twinbox_supplied_id_pkey), both on the Java path and
--     on the plain-SQL path (V5's trigger); and a supplied id that an outbox row already has (one
--     the writer generated) is refused too, by the Java writer's ledger insert and by the trigger
--     twinbox_outbox_id_unused below (probing the plain index on id). Keep the supplied-id retention
--     at least as long as the outbox retention.
--   - Every other index is partitioned alike: each partition has its own partial pending index, so
--     the claim walks small indexes however much history there is.
--
-- Conversion: the rows of an existing plain outbox are copied into partitions created for the
-- intervals they fall in (one transaction, under the migration lock: writers wait meanwhile; drain
-- or purge a big outbox first). Positions are kept and the identity continues after the highest.
-- Drop Twinbox's WAL slots before converting (their publication loses the old table); the WAL
-- relay creates a publication with publish_via_partition_root = true afterwards.

-- Without a unique index on id, an id the writer generated earlier is not in the supplied-id ledger:
-- a plain-SQL row that supplies it is refused here while the row that has it is kept (the Java
-- writer checks the same in its ledger insert).
CREATE OR REPLACE FUNCTION twinbox_outbox_id_unused() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM twinbox_outbox WHERE id = NEW.id) THEN
    RAISE EXCEPTION 'duplicate key value: message id % is already in twinbox_outbox', NEW.id
      USING ERRCODE = 'unique_violation', CONSTRAINT = 'twinbox_outbox_id';
  END IF;
  RETURN NEW;
END $$;

DO $$
DECLARE
  step_s   bigint;
  cols     text;
  notify   "char";
  lo       timestamptz;
  last_pos bigint;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'twinbox_outbox'::regclass) = 'p' THEN
    RETURN;
  END IF;
  SELECT interval_seconds INTO step_s FROM twinbox_outbox_partitioning;
  SELECT tgenabled INTO notify FROM pg_trigger
   WHERE tgname = 'twinbox_outbox_notify' AND tgrelid = 'twinbox_outbox'::regclass;

  -- Same columns, defaults, generated column, identity and CHECKs as the table of V1..V8 (and of
  -- any later script applied before this one).
  CREATE TABLE twinbox_outbox_next (LIKE twinbox_outbox INCLUDING DEFAULTS INCLUDING GENERATED
    INCLUDING IDENTITY INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
  CREATE TABLE twinbox_outbox_default PARTITION OF twinbox_outbox_next DEFAULT;

  FOR lo IN SELECT DISTINCT to_timestamp(floor(extract(epoch FROM created_at) / step_s) * step_s)
              FROM twinbox_outbox LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF twinbox_outbox_next FOR VALUES FROM (%L) TO (%L)',
                   'twinbox_outbox_' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMMDD"t"HH24MISS'),
                   lo, lo + step_s * interval '1 second');
  END LOOP;

  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols FROM pg_attribute
   WHERE attrelid = 'twinbox_outbox'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
  EXECUTE format('INSERT INTO twinbox_outbox_next (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM twinbox_outbox',
                 cols, cols);
  last_pos := greatest((SELECT max(position) FROM twinbox_outbox),
                       (SELECT last_value FROM pg_sequences
                         WHERE schemaname || '.' || sequencename = pg_get_serial_sequence('twinbox_outbox', 'position')));

  DROP TABLE twinbox_outbox;
  ALTER TABLE twinbox_outbox_next RENAME TO twinbox_outbox;
  IF last_pos IS NOT NULL THEN
    PERFORM setval(pg_get_serial_sequence('twinbox_outbox', 'position'), last_pos);
  END IF;

  ALTER TABLE twinbox_outbox ADD PRIMARY KEY (position, created_at);
  CREATE INDEX twinbox_outbox_by_id ON twinbox_outbox (id);
  CREATE INDEX twinbox_outbox_pending ON twinbox_outbox (position) WHERE status = 'PENDING';
  CREATE INDEX twinbox_outbox_held ON twinbox_outbox (aggregate_type, aggregate_id, sequence)
    WHERE status = 'FAILED' OR (status = 'PENDING' AND attempts > 0);
  CREATE INDEX twinbox_outbox_published ON twinbox_outbox (published_at) WHERE status = 'PUBLISHED';
  CREATE INDEX twinbox_outbox_dead_letter ON twinbox_outbox (position) WHERE dead_letter = 'PENDING';

  -- Fires before twinbox_outbox_plain_sql (BEFORE triggers fire in name order).
  CREATE TRIGGER twinbox_outbox_id_unused BEFORE INSERT ON twinbox_outbox
    FOR EACH ROW WHEN (NEW.id IS NOT NULL AND NEW.sequence IS NULL) EXECUTE FUNCTION twinbox_outbox_id_unused();
  CREATE TRIGGER twinbox_outbox_plain_sql BEFORE INSERT ON twinbox_outbox
    FOR EACH ROW WHEN (NEW.sequence IS NULL OR NEW.id IS NULL) EXECUTE FUNCTION twinbox_plain_sql_row();
  CREATE TRIGGER twinbox_outbox_notify AFTER INSERT ON twinbox_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION twinbox_notify();
  IF notify IS NULL OR notify = 'D' THEN
    ALTER TABLE twinbox_outbox DISABLE TRIGGER twinbox_outbox_notify;
  END IF;
END $$;

-- The outbox's partitions with their bounds (NULL for the DEFAULT partition), read from the catalog.
CREATE OR REPLACE VIEW twinbox_outbox_partitions AS
  SELECT c.relname::text AS name,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']*)''\)'))[1]::timestamptz AS lower_bound,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']*)''\)'))[1]::timestamptz AS upper_bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'twinbox_outbox'::regclass;

-- Creates the partitions that cover now up to `ahead` intervals ahead; returns how many it created.
-- Run by the relay (JdbcStore, about once a minute) and callable from plain SQL (pg_cron). It goes
-- on from the end of the latest partition, so a changed interval never overlaps older partitions;
-- an interval for which the DEFAULT partition already holds rows is skipped (its rows stay there:
-- PostgreSQL refuses a new partition whose range the default partition holds rows of).
CREATE OR REPLACE FUNCTION twinbox_outbox_create_partitions() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  step_s bigint;
  ahead_n int;
  lo timestamptz;
  hi timestamptz;
  horizon timestamptz;
  made int := 0;
BEGIN
  SELECT interval_seconds, ahead INTO step_s, ahead_n FROM twinbox_outbox_partitioning;
  lo := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / step_s) * step_s);
  horizon := lo + ahead_n * step_s * interval '1 second';
  lo := greatest(lo, (SELECT max(upper_bound) FROM twinbox_outbox_partitions));
  WHILE lo <= horizon LOOP
    hi := lo + step_s * interval '1 second';
    IF EXISTS (SELECT 1 FROM twinbox_outbox_default WHERE created_at >= lo AND created_at < hi) THEN
      RAISE WARNING 'twinbox_outbox_default holds rows from % to %: no partition is created for that time', lo, hi;
    ELSE
      EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF twinbox_outbox FOR VALUES FROM (%L) TO (%L)',
                     'twinbox_outbox_' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMMDD"t"HH24MISS'), lo, hi);
      made := made + 1;
    END IF;
    lo := hi;
  END LOOP;
  RETURN made;
END $$;

SELECT twinbox_outbox_create_partitions();
