package io.twinbox.testkit.cpu;

import io.twinbox.InboxMessage;
import io.twinbox.spi.InboxStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An {@link InboxStore} that keeps nothing: every id is new, nothing is stored, attempts count 1.
 * For measuring what the consumer costs in the JVM apart from the database ({@link ConsumerCpu}).
 */
final class NullInboxStore implements InboxStore {
  @Override
  public List<String> record(Connection c, String consumer, Map<String, String> hashes) {
    return new ArrayList<>(hashes.keySet());
  }

  @Override
  public Map<String, String> storedHashes(Connection c, String consumer, List<String> ids) {
    return Map.of();
  }

  @Override
  public void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason,
      int attempts) {}

  @Override
  public int recordAttempt(String consumer, String messageId, String error) {
    return 1;
  }

  @Override
  public void clearAttempts(Connection c, String consumer, String messageId) {}

  @Override
  public int purgeProcessed(Duration age, int limit) {
    return 0;
  }
}
