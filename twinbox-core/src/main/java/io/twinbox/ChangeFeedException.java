package io.twinbox;

/**
 * A change feed (the WAL relay's replication stream) cannot be set up or used, for a reason the
 * operator must fix. The message names the setting or statement that fixes it. Thrown before
 * anything is created, or after what this attempt created was removed again: a failed start leaves
 * no publication or slot half-made.
 */
public class ChangeFeedException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  /** What is wrong; each has its own fix, named in the message. */
  public enum Problem {
    /** The store cannot stream changes at all (MariaDB today). */
    UNSUPPORTED,
    /** {@code wal_level} is not {@code logical}. */
    WAL_LEVEL,
    /** The role has neither {@code REPLICATION} nor superuser. */
    NO_REPLICATION_PRIVILEGE,
    /** Every replication slot allowed by {@code max_replication_slots} is taken. */
    SLOTS_EXHAUSTED,
    /** The publication does not exist and this role may not create it. */
    PUBLICATION_MISSING,
    /** The publication exists but does not publish exactly the outbox's inserts. */
    PUBLICATION_ALTERED,
    /** Another process consumes the slot and cannot be ended. */
    SLOT_IN_USE,
    /** A slot of that name exists but is not a {@code pgoutput} slot of this database. */
    SLOT_MISMATCH,
    /** The slot was invalidated by the server (WAL it needed was removed). */
    SLOT_LOST,
    /** The replication connection was refused (login, {@code pg_hba.conf}). */
    LOGIN
  }

  private final Problem problem;

  public ChangeFeedException(Problem problem, String message) {
    this(problem, message, null);
  }

  public ChangeFeedException(Problem problem, String message, Throwable cause) {
    super(message, cause);
    this.problem = problem;
  }

  public Problem problem() {
    return problem;
  }
}
