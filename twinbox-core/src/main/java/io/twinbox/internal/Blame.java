package io.twinbox.internal;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Who is to blame for a failed inbox transaction, read from the SQLSTATEs (and JDBC exception
 * types) over the whole cause chain, each {@link SQLException}'s {@code getNextException} chain
 * included — never from message text.
 *
 * <ul>
 *   <li>{@link #INFRASTRUCTURE}: classes 08 (connection), 40 (serialization failure, deadlock), 53
 *       (insufficient resources), 57 (operator intervention, e.g. a shutdown), the JDBC transient
 *       and connection exception types, and what the store says is transient (MariaDB's lock wait
 *       timeout). Retried without using an attempt. Wins over anything else in the chain: a
 *       transaction aborted by a deadlock is the deadlock's doing.
 *   <li>{@link #MESSAGE}: classes 22 (data exception), 23 (integrity constraint, also a deferred
 *       one broken at COMMIT), 42 (syntax or access rule) and 25P02 (a transaction aborted by an
 *       earlier error that the handler swallowed). Costs an attempt; parked at {@code maxAttempts}.
 *   <li>{@link #UNKNOWN}: anything else; the caller decides by where it happened.
 * </ul>
 */
public enum Blame {
  INFRASTRUCTURE,
  MESSAGE,
  UNKNOWN;

  /** PostgreSQL's "current transaction is aborted, commands ignored until end of transaction block". */
  public static final String ABORTED_TRANSACTION = "25P02";

  public static Blame of(Throwable failure, Predicate<SQLException> isTransient) {
    boolean message = false;
    for (SQLException s : sqlExceptions(failure)) {
      if (s instanceof SQLTransientException || s instanceof SQLRecoverableException
          || s instanceof SQLNonTransientConnectionException || isTransient.test(s)) {
        return INFRASTRUCTURE;
      }
      String state = s.getSQLState();
      if (state == null || state.length() < 2) {
        continue;
      }
      switch (state.substring(0, 2)) {
        case "08", "40", "53", "57" -> {
          return INFRASTRUCTURE;
        }
        case "22", "23", "42" -> message = true;
        default -> message |= ABORTED_TRANSACTION.equals(state);
      }
    }
    return message ? MESSAGE : UNKNOWN;
  }

  /** True when the chain holds SQLSTATE 25P02: the transaction was already aborted by an earlier statement. */
  public static boolean abortedTransaction(Throwable failure) {
    return sqlExceptions(failure).stream().anyMatch(s -> ABORTED_TRANSACTION.equals(s.getSQLState()));
  }

  /** The SQLSTATE of the first SQLException in the chain that has one, or null. */
  public static String firstSqlState(Throwable failure) {
    return sqlExceptions(failure).stream().map(SQLException::getSQLState).filter(s -> s != null).findFirst()
        .orElse(null);
  }

  /**
   * Every SQLException in the cause chains and next-exception chains, each once. Suppressed
   * exceptions are left out: a rollback that failed after the error is not its cause.
   */
  private static List<SQLException> sqlExceptions(Throwable failure) {
    List<SQLException> found = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> todo = new ArrayList<>();
    if (failure != null) {
      todo.add(failure);
    }
    while (!todo.isEmpty() && seen.size() < 100) {
      Throwable t = todo.remove(todo.size() - 1);
      if (!seen.add(t)) {
        continue;
      }
      if (t instanceof SQLException s) {
        found.add(s);
        if (s.getNextException() != null) {
          todo.add(s.getNextException());
        }
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
    }
    return found;
  }
}
