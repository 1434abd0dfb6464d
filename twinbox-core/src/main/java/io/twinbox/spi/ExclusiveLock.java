package io.twinbox.spi;

import java.util.Optional;

/**
 * A named lock that at most one holder across every process sharing the store has at a time,
 * taken without waiting: what keeps a job such as {@link io.twinbox.Retention} to one runner
 * however many instances schedule it. The JDBC store backs it with a session-level advisory lock
 * ({@code pg_try_advisory_lock} on PostgreSQL, {@code GET_LOCK(name, 0)} on MariaDB) held on one
 * connection of its own until {@link Held#close()}; a holder whose process dies loses the lock with
 * its connection. Implementations must be thread-safe.
 */
public interface ExclusiveLock {

  /**
   * Takes the lock called {@code name} if nobody holds it, without waiting.
   *
   * @return the held lock, to be closed once the work is done; empty when another holder has it
   * @throws io.twinbox.StoreException when the store cannot be asked
   */
  Optional<Held> tryLock(String name);

  /** A lock taken by {@link #tryLock}: closing it releases it (idempotent, never throws). */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }
}
