package io.twinbox.spi;

import io.twinbox.ChangeFeedException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A store whose committed inserts can be streamed from the database's log, for the WAL relay
 * ({@code RelayMode.WAL}). {@code JdbcStore} implements it; on PostgreSQL it opens a logical
 * replication slot read with {@code pgoutput}, on MariaDB it is {@linkplain #changeFeedUnsupported
 * unsupported}. The outbox table stays the source of truth: these queries let the relay hand to the
 * table's own claim every row the stream did not publish. Implementations must be thread-safe.
 */
public interface ChangeFeedStore {

  /** Empty when this store can open change feeds; otherwise why not, for the error message. */
  Optional<String> changeFeedUnsupported();

  /** The feed (slot) name used when the relay names none, e.g. {@code twinbox_<database>}. */
  String defaultFeedName();

  /**
   * Checks the server's settings and creates (or reuses) the publication and the slot {@code name},
   * without consuming it: what {@code Relay.start()} runs, so that a wrong setup fails at once, on
   * every relay, also on standbys. Idempotent; safe when several relays run it together.
   *
   * @throws ChangeFeedException naming the fix when the setup is wrong; nothing is left half-created
   */
  void prepareChangeFeed(String name);

  /**
   * As {@link #prepareChangeFeed}, then ends a stale consumer of the slot (the caller holds the stream lease, so a consumer still
   * attached is a relay that lost it), and starts streaming from the slot's confirmed position. Never
   * creates the slot: one that is missing now was dropped after the relay started, and a new one
   * would begin past unread changes ({@link ChangeFeedException.Problem#SLOT_LOST}, as for a slot the
   * server invalidated).
   *
   * @param mayConfirm checked right before a confirmation is sent to the server
   * @param maxBufferedChanges changes buffered before the feed stops reading (back-pressure)
   * @throws ChangeFeedException naming the fix when the setup is wrong; nothing is left half-created
   */
  ChangeFeed openChangeFeed(String name, BooleanSupplier mayConfirm, int maxBufferedChanges);

  /**
   * Every group with rows in the outbox that are not PUBLISHED. A stream that starts now leaves
   * these groups to the table's claim until it knows that none of their rows lies behind its start.
   */
  Map<GroupKey, TableGroup> groupsInTable();

  /**
   * What the table holds of one group (sequences are 0 for unordered events).
   *
   * @param held whether a row of it is FAILED or waiting for a retry
   */
  record TableGroup(long minSequence, long maxSequence, boolean held) {}

  /** Of {@code groups}, those with a row that holds the group back (FAILED, or waiting for a retry). */
  Set<GroupKey> heldGroups(Collection<GroupKey> groups);

  /**
   * Of the given row positions, those whose rows the table still holds unpublished (not deleted,
   * not marked PUBLISHED). A stream that starts behind its predecessor's last completion receives
   * again the events that one published and completed but had not confirmed; with this it skips
   * them instead of publishing them twice. The default answers that every row is still there: the
   * stream then publishes them again (duplicates, never a loss).
   */
  default Set<Long> unpublished(Collection<Long> positions) {
    return new HashSet<>(positions);
  }

  /** Of the given transaction ids (as in {@link Change.Begin}), those still in progress. */
  Set<Long> inProgress(Collection<Long> xids);

  /**
   * The database's current log position; every transaction visible to a statement that ended
   * before this call committed at or before it.
   */
  long currentPosition();
}
