package io.twinbox.spi;

import io.twinbox.InboxMessage;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where a consumer's inbox lives: {@code (consumer, message id)} records written in the consumer's
 * own transaction, parked messages, and attempt counters. Implementations must be thread-safe and
 * must detect conflicts by key ({@code ON CONFLICT} / SQLSTATE), never by error text.
 */
public interface InboxStore {

  /**
   * Records the messages for {@code consumer} as the first statement(s) of the caller's
   * transaction, in one set-based statement. Returns the ids that were new. An id already
   * recorded — also by a concurrent transaction, which this call waits for — is not new.
   *
   * @param hashes message id → payload hash (hex SHA-256), ids distinct
   */
  List<String> record(Connection c, String consumer, Map<String, String> hashes);

  /** The stored payload hashes of already-recorded ids (read in a fresh statement). */
  Map<String, String> storedHashes(Connection c, String consumer, List<String> ids);

  /** Parks a message with a reason; also records it in the inbox so it is not processed again. */
  void park(Connection c, String consumer, InboxMessage message, String payloadHash, String reason, int attempts);

  /**
   * Increments and returns the persisted attempt counter of a message, in its own short
   * transaction: a message that kills the process still makes progress towards being parked.
   */
  int recordAttempt(String consumer, String messageId, String error);

  /** Forgets the attempt counter once the message is processed or parked. */
  void clearAttempts(Connection c, String consumer, String messageId);

  /** Deletes up to {@code limit} inbox records older than {@code age}; returns how many. */
  int purgeProcessed(Duration age, int limit);
}
