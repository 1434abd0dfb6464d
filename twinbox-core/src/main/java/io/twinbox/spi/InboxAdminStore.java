package io.twinbox.spi;

import io.twinbox.ParkedAudit;
import io.twinbox.ParkedFilter;
import io.twinbox.ParkedMessage;
import io.twinbox.ParkedMessageException;
import io.twinbox.ParkedSummary;
import java.util.List;
import java.util.Optional;

/**
 * The operator's view of an inbox store's parked messages, behind {@link io.twinbox.TwinboxAdmin}:
 * listings, one message, replay requests and discards with their audit trail, counts. Each change
 * and its audit record commit together, in a short transaction of their own; a change checks the
 * row's state under its row lock, so that two operators racing cannot both act. Arguments arrive
 * checked ({@code by} non-blank and at most 255 characters). Thread-safe.
 *
 * <p>The replay itself is the consumer's ({@link InboxStore#startReplay}): a request only moves the
 * row to {@code REPLAYING}.
 */
public interface InboxAdminStore {

  /** The messages that pass {@code filter}, oldest first, without payloads. */
  List<ParkedMessage> parked(ParkedFilter filter);

  /** One parked message, with its payload only when {@code withPayload}. */
  Optional<ParkedMessage> parkedMessage(long id, boolean withPayload);

  /**
   * Asks the consumer to replay {@code id}: a {@code PARKED} row becomes {@code REPLAYING}, with an
   * audit record; a {@code REPLAYING} one stays as it is. Returns the row as it is afterwards.
   *
   * @throws ParkedMessageException {@code NOT_FOUND}, {@code ALREADY_REPLAYED}, {@code ALREADY_DISCARDED}
   *     or {@code NOT_REPLAYABLE} (no stored payload); nothing changed
   */
  ParkedMessage requestReplay(long id, String by);

  /** Asks for the replay of the {@code PARKED} rows with a payload that pass {@code filter}; returns how many. */
  int requestReplay(ParkedFilter filter, String by);

  /**
   * Discards {@code id} (from {@code PARKED} or {@code REPLAYING}), with an audit record. Returns the row afterwards.
   *
   * @throws ParkedMessageException {@code NOT_FOUND}, {@code ALREADY_REPLAYED} or {@code ALREADY_DISCARDED}
   */
  ParkedMessage discard(long id, String by);

  /** Discards the {@code PARKED} and {@code REPLAYING} rows that pass {@code filter}; returns how many. */
  int discard(ParkedFilter filter, String by);

  /** Per consumer with parked or replaying messages: counts and the oldest age (store clock). */
  List<ParkedSummary> parkedSummary();

  /** The audit trail of a parked row, oldest first (empty for an unknown id). */
  List<ParkedAudit> audit(long id);
}
