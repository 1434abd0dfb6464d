package io.twinbox;

/**
 * An operation on a parked message that its state (or absence) does not allow. Nothing was changed.
 * The message names the row and its state only, never its content.
 */
public final class ParkedMessageException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  /** What stood in the way. */
  public enum Problem {
    /** No parked message has this id. */
    NOT_FOUND,
    /** It was replayed already: a second replay or a discard would do nothing. */
    ALREADY_REPLAYED,
    /** It was discarded already. */
    ALREADY_DISCARDED,
    /** Its row holds no payload (too large for the database, or a minimal row): there is nothing to replay. */
    NOT_REPLAYABLE
  }

  private final long id;
  private final Problem problem;

  public ParkedMessageException(long id, Problem problem) {
    super(text(id, problem));
    this.id = id;
    this.problem = problem;
  }

  public long id() {
    return id;
  }

  public Problem problem() {
    return problem;
  }

  private static String text(long id, Problem p) {
    return switch (p) {
      case NOT_FOUND -> "no parked message with id " + id;
      case ALREADY_REPLAYED -> "parked message " + id + " was already replayed; nothing changed";
      case ALREADY_DISCARDED -> "parked message " + id + " was already discarded; nothing changed";
      case NOT_REPLAYABLE -> "parked message " + id + " has no stored payload (too large or stored as the minimal"
          + " row) and cannot be replayed; nothing changed";
    };
  }
}
