/**
 * Test support for applications that use Twinbox: {@link io.twinbox.test.TwinboxProbe} records
 * what a relay publishes, awaits "event X published" and "message X applied", and drains an outbox
 * deterministically; {@link io.twinbox.test.EventMatcher} says which event is meant (type,
 * aggregate, payload JSON); {@link io.twinbox.test.TwinboxExtension} wires a probe into JUnit 5.
 * Works with any store — a {@code JdbcStore} on any {@code DataSource} (a local server,
 * Testcontainers) or core's {@link io.twinbox.testing.InMemoryStore}. See docs/testing.md.
 */
package io.twinbox.test;
