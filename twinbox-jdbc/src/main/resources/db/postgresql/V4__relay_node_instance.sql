-- Which run of a relay holds a node id. Every relay draws a random instance token when it starts
-- and registers it here; a relay started with the node id of another live one (its heartbeat
-- within the lease TTL) is refused, while the successor of a crashed run takes the row over as soon
-- as the old heartbeat has lapsed. Rows of relays older than this version keep NULL. Idempotent.
ALTER TABLE twinbox_relay_node ADD COLUMN IF NOT EXISTS instance varchar(64);
