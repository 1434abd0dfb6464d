package io.twinbox.bench.write;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One way of doing a business transaction's writes, measured by the {@code write} scenario. The
 * harness opens the transaction (auto-commit off), calls {@link #write}, and commits.
 *
 * <p>Implementations are shared by all client threads and must be thread-safe. A peer library
 * (issue 9) is one more implementation.
 */
public interface WritePath {

  /** A short, stable name used in tables, the results file and plots. */
  String name();

  /** One line: what the transaction contains. */
  String description();

  /** Runs once before the measurement, e.g. to create the peer's tables. */
  default void prepare(Connection c) throws SQLException {}

  /** Runs once after the measurement, e.g. to undo what {@link #prepare} changed. */
  default void finish(Connection c) throws SQLException {}

  /** The writes of one transaction, on a connection whose transaction is open. */
  void write(Connection c, Order order) throws SQLException;

  /** The business data of one transaction. */
  record Order(long no, String customer, long cents, String aggregateId, String payload) {}
}
