-- Twinbox schema, version 4: outbox rows written by plain SQL meet the Java writer's rules.
-- PostgreSQL 12+. Idempotent: every statement may run again without harm.
--
-- Services in other languages insert outbox rows with plain SQL. Before this script the schema took
-- rows the relay cannot publish as the rules demand: headers 'null' (what Go's json.Marshal writes
-- for a nil map), '[]' or a scalar; header values that are not strings; reserved headers (ce_* would
-- forge CloudEvents attributes on the wire); blank types. Such rows now fail at INSERT, with
-- SQLSTATE 23514 (check_violation) and a message naming the column and the rule. The relay checks
-- every row it claims by the same rules as well, and moves one that breaks them (stored before this
-- script, changed by an UPDATE, or inserted by a writer that sets `sequence` itself) to FAILED with
-- its reason.
--
-- Why a trigger and no CHECK constraints (such as jsonb_typeof(headers) = 'object'): PostgreSQL
-- checks a constraint on every UPDATE of a row, NOT VALID or not. A row stored before this script
-- could then never be moved to FAILED: the relay's completion UPDATE failed with 23514 and rolled
-- back the completion of the healthy rows with it, round after round (measured), and an operator's
-- `retry --all-failed` would fail on it too. The trigger checks inserts only, so existing rows stay
-- as they are and this script never fails on them; and it runs only on the plain-SQL path, so the
-- Java writer (which has checked every rule) pays nothing.

-- 1. Message ids generated for plain-SQL rows are UUIDv7 (48-bit Unix milliseconds, then random
--    bits), as the Java writer's are: a v4 from gen_random_uuid() with the time put in front and
--    the version nibble set from 4 to 7.
CREATE OR REPLACE FUNCTION twinbox_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
           PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
           FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

-- 2. The plain-SQL path. The Java writer sets both `id` and `sequence` and has checked every rule
--    and recorded its own supplied ids: the trigger's WHEN clause keeps its rows out, so it never
--    pays for this function. For every other row the function
--      - checks the rules the Java writer checks (names, version, ids, trace context, headers),
--      - records a caller-chosen id in the supplied-id ledger, so that a reused id is refused
--        (23505) even after its event was published and deleted,
--      - generates the id when none is given (hence no column default any more: a default would
--        make a generated id indistinguishable from a supplied one),
--      - takes the aggregate's next sequence, as V1's trigger did.
-- The reserved header prefixes are EventRules' (a test compares the two lists).
CREATE OR REPLACE FUNCTION twinbox_plain_sql_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  h record;
  problem text;
BEGIN
  problem := CASE
    WHEN NEW.type !~ '[^[:space:]]' THEN 'type: must not be blank'
    WHEN NEW.type ~ '[\x01-\x1f\x7f]' THEN 'type: contains a control character'
    WHEN NEW.aggregate_type !~ '[^[:space:]]' THEN 'aggregate_type: must not be blank'
    WHEN NEW.aggregate_type ~ '[\x01-\x1f\x7f]' THEN 'aggregate_type: contains a control character'
    WHEN NEW.aggregate_id ~ '[\x01-\x1f\x7f]' THEN 'aggregate_id: contains a control character'
    WHEN NEW.version < 1 THEN 'version: must be >= 1'
    WHEN NEW.correlation_id ~ '[\x01-\x1f\x7f]' THEN 'correlation_id: contains a control character'
    WHEN NEW.causation_id ~ '[\x01-\x1f\x7f]' THEN 'causation_id: contains a control character'
    WHEN NEW.traceparent !~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
      THEN 'traceparent: must be a W3C traceparent (version-traceid-spanid-flags)'
    WHEN jsonb_typeof(NEW.headers) <> 'object'
      THEN 'headers: must be a JSON object of string values, is a JSON ' || jsonb_typeof(NEW.headers)
    WHEN (SELECT count(*) FROM jsonb_object_keys(NEW.headers)) > 64 THEN 'headers: more than 64 entries'
  END;
  IF problem IS NULL AND NEW.headers IS NOT NULL THEN
    FOR h IN SELECT key, value FROM jsonb_each(NEW.headers) LOOP
      problem := CASE
        WHEN jsonb_typeof(h.value) <> 'string' THEN 'headers: every value must be a JSON string'
        WHEN h.key !~ '^[A-Za-z0-9][A-Za-z0-9._-]*$' THEN 'headers: a name must match [A-Za-z0-9][A-Za-z0-9._-]*'
        WHEN length(h.key) > 128 THEN 'headers: a name is longer than 128 characters'
        WHEN lower(h.key) ~ ('^(ce_|ce-|cloudevents|twinbox|nats-|x-delivery-|x-death|x-first-death|__typeid__'
                             '|__keytypeid__|__contenttypeid__|content-type|traceparent|tracestate)')
          THEN 'headers.' || h.key || ': is reserved'
        WHEN length(h.value #>> '{}') > 4096 THEN 'headers.' || h.key || ': value longer than 4096 characters'
        WHEN (h.value #>> '{}') ~ '[\x01-\x1f\x7f]' THEN 'headers.' || h.key || ': value contains a control character'
      END;
      EXIT WHEN problem IS NOT NULL;
    END LOOP;
  END IF;
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION 'twinbox_outbox.%', problem USING ERRCODE = 'check_violation',
      CONSTRAINT = 'twinbox_outbox_plain_sql_rules', HINT = 'see "Input rules" in the Twinbox README';
  END IF;

  IF NEW.id IS NULL THEN
    NEW.id := twinbox_uuid_v7();
  ELSE
    INSERT INTO twinbox_supplied_id (id) VALUES (NEW.id);
  END IF;

  -- PostgreSQL fills the identity `position` before BEFORE triggers run, i.e. before the counter
  -- lock: a writer delayed in between would get a lower position but a higher sequence, and the
  -- relay (which walks positions) could publish sequence 2 before 1. So the function takes a fresh
  -- position after the lock (the first one is left as a gap).
  IF NEW.sequence IS NULL THEN
    IF NEW.aggregate_id IS NULL THEN
      NEW.sequence := 0;
    ELSE
      INSERT INTO twinbox_aggregate AS a (aggregate_type, aggregate_id, last_sequence)
        VALUES (NEW.aggregate_type, NEW.aggregate_id, 1)
        ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last_sequence = a.last_sequence + 1
        RETURNING last_sequence INTO NEW.sequence;
      NEW.position := nextval(pg_get_serial_sequence('twinbox_outbox', 'position'));
    END IF;
  END IF;
  RETURN NEW;
END $$;

ALTER TABLE twinbox_outbox ALTER COLUMN id DROP DEFAULT;

DROP TRIGGER IF EXISTS twinbox_outbox_sequence ON twinbox_outbox;
DROP TRIGGER IF EXISTS twinbox_outbox_plain_sql ON twinbox_outbox;
CREATE TRIGGER twinbox_outbox_plain_sql BEFORE INSERT ON twinbox_outbox
  FOR EACH ROW WHEN (NEW.sequence IS NULL OR NEW.id IS NULL) EXECUTE FUNCTION twinbox_plain_sql_row();
DROP FUNCTION IF EXISTS twinbox_assign_sequence();

-- 3. Retention of the supplied-id ledger (Retention.Builder.suppliedIdRetention, 90 days by
--    default) deletes by age.
CREATE INDEX IF NOT EXISTS twinbox_supplied_id_created ON twinbox_supplied_id (created_at);
