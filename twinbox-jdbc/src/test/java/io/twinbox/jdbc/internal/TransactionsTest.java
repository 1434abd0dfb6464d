package io.twinbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.jdbc.PostgresDialect;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** How a driver or pool error is named in a StoreException; pure logic, no server. */
class TransactionsTest {

  /**
   * Issue 22: the relay's warning for a pool that could not hand out a connection read "SQLSTATE
   * null": HikariCP's SQLTransientConnectionException has no SQLSTATE of its own when the last
   * connection failure reached it wrapped, and the driver's 08006 sits further down the chain.
   */
  @Test
  void theSqlStateIsFoundAlongTheCauseChainOfAPoolTimeout() {
    SQLException driver = new SQLException("An I/O error occurred while sending to the backend.", "08006");
    SQLException pool = new SQLTransientConnectionException(
        "twinbox-relay - Connection is not available, request timed out after 5000ms.", null,
        new RuntimeException("wrapped by the pool", driver));

    assertThat(Transactions.map(PostgresDialect.INSTANCE, "record the relay heartbeat", pool).getMessage())
        .isEqualTo("could not record the relay heartbeat (SQLSTATE 08006)");
  }

  @Test
  void theNextExceptionChainIsReadToo() {
    SQLException batch = new SQLException("Batch entry 0 was aborted");
    batch.setNextException(new SQLException("duplicate key", "23505"));
    assertThat(Transactions.sqlState(batch)).isEqualTo("23505");
    assertThat(Transactions.sqlState(new SQLException("its own", "40001", batch))).isEqualTo("40001");
  }

  @Test
  void aChainWithoutAnySqlStateSaysNullAndACyclicOneEnds() {
    SQLException a = new SQLException("a");
    SQLException b = new SQLException("b", a);
    a.initCause(b); // a cycle
    a.setNextException(b);
    b.setNextException(a);
    assertThat(Transactions.sqlState(a)).isNull();
  }
}
