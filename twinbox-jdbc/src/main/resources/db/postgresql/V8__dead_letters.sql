-- Twinbox schema: dead letters. PostgreSQL 12+. Idempotent: every statement may run again without harm.
--
-- A relay with dead letters enabled (Relay.Builder.deadLetters) moves a row to FAILED and marks its
-- dead letter PENDING in the same UPDATE; its dead-letter loop publishes pending ones to the
-- dead-letter destination and marks them SENT once acknowledged (at least once: a crash in between
-- sends it again). DROPPED: the row no longer decodes (changed by hand), no CloudEvent can be made.
-- first_failed_at / last_failed_at: the first and last failed publish attempt (database clock),
-- carried on the dead letter as the extensions dlqfirstfailure / dlqlastfailure.
-- Relays without dead letters neither read nor write these columns: they run on schemas without them.
-- Nullable columns without a default: adding them rewrites nothing, whatever the table's size.
ALTER TABLE twinbox_outbox ADD COLUMN IF NOT EXISTS dead_letter varchar(8)
  CHECK (dead_letter IN ('PENDING', 'SENT', 'DROPPED'));
ALTER TABLE twinbox_outbox ADD COLUMN IF NOT EXISTS first_failed_at timestamptz;
ALTER TABLE twinbox_outbox ADD COLUMN IF NOT EXISTS last_failed_at timestamptz;

-- The dead-letter loop's claim walks this index; it holds pending dead letters only (usually none).
CREATE INDEX IF NOT EXISTS twinbox_outbox_dead_letter ON twinbox_outbox (position) WHERE dead_letter = 'PENDING';

-- The consumer side: an InboxConsumer with a dead-letter destination forwards its parked messages
-- there. NULL: not forwarded yet (pending while forwarding is on); SENT once the destination
-- acknowledged it (at least once: a crash in between forwards it again). The forwarder walks
-- twinbox_inbox_parked_consumer.
ALTER TABLE twinbox_inbox_parked ADD COLUMN IF NOT EXISTS dead_letter varchar(8)
  CHECK (dead_letter IN ('PENDING', 'SENT', 'DROPPED'));
