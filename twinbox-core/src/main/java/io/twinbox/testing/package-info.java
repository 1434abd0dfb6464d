/**
 * Twinbox for users' unit tests, without a database or a broker: {@link
 * io.twinbox.testing.InMemoryStore} is an outbox, operator and inbox store in memory (transactions
 * on its own connections, row locks, leases and a {@link io.twinbox.testing.TestClock}) that passes
 * the same contract suites as PostgreSQL and MariaDB; {@link io.twinbox.testing.RecordingTransport}
 * acknowledges and records what a relay publishes. Code that runs its own SQL still needs a real
 * database.
 */
package io.twinbox.testing;
