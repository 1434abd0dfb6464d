package io.twinbox.bench.relay;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/**
 * One way of draining a pre-filled outbox, measured by the {@code relay} scenario: the raw-SQL
 * limit, a bare claim/send/delete loop, the Twinbox relay — and, for issue 9, each peer.
 */
public interface Drainer {

  /** A short, stable name for tables, the results file and plots. */
  String name();

  /** The settings that distinguish this run (workers, claimers, batch size...). */
  Map<String, Object> params();

  /**
   * Publishes (or, for the SQL limit, just claims and deletes) every pending row and returns once
   * the outbox is empty or the deadline has passed. The harness times the call.
   *
   * @return extra metrics (profile, counters); may be empty
   */
  Map<String, Object> drain(Context ctx) throws Exception;

  /** What a drainer may use. */
  record Context(PostgresDatabase db, DataSource admin, KafkaBroker broker, String topic, long events,
      Duration timeout) {}
}
