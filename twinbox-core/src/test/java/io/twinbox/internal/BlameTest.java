package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxHandlerException;
import io.twinbox.StoreException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** Failures are classified by SQLSTATE over the whole chain (issue 22, Medium-3), never by text. */
class BlameTest {
  private static Blame of(Throwable t) {
    return Blame.of(t, s -> s.getErrorCode() == 1205);
  }

  private static SQLException state(String sqlState) {
    return new SQLException("text is never read", sqlState);
  }

  @Test
  void infrastructureClassesAreRetriedWithoutAnAttempt() {
    for (String s : new String[] {"08006", "08S01", "40001", "40P01", "53300", "57P01"}) {
      assertThat(of(state(s))).as(s).isEqualTo(Blame.INFRASTRUCTURE);
    }
    assertThat(of(new SQLTransientConnectionException("pool timeout"))).isEqualTo(Blame.INFRASTRUCTURE);
    assertThat(of(new SQLException("lock wait timeout", "HY000", 1205))).as("the store's own rule")
        .isEqualTo(Blame.INFRASTRUCTURE);
  }

  @Test
  void theMessagesFaultsCostAnAttempt() {
    for (String s : new String[] {"22001", "22P05", "23505", "23514", "42P01", "25P02"}) {
      assertThat(of(state(s))).as(s).isEqualTo(Blame.MESSAGE);
    }
    assertThat(of(state("25000"))).as("only 25P02 of class 25").isEqualTo(Blame.UNKNOWN);
  }

  @Test
  void theWholeChainIsRead() {
    SQLException batch = state(null);
    batch.setNextException(state("23505"));
    assertThat(of(new StoreException("could not commit", batch))).isEqualTo(Blame.MESSAGE);
    assertThat(of(new InboxHandlerException("m1", 0, new IllegalStateException("wrapped", state("22001")))))
        .isEqualTo(Blame.MESSAGE);
    assertThat(Blame.firstSqlState(new StoreException("x", batch))).isEqualTo("23505");
  }

  @Test
  void infrastructureWinsOverWhatItCaused() {
    SQLException aborted = state("25P02");
    aborted.initCause(state("40P01")); // a deadlock aborted the transaction
    assertThat(of(aborted)).isEqualTo(Blame.INFRASTRUCTURE);
    assertThat(Blame.abortedTransaction(aborted)).isTrue();
  }

  @Test
  void aRollbackThatFailedAfterwardsIsNotTheCause() {
    SQLException constraint = state("23505");
    constraint.addSuppressed(state("08006"));
    assertThat(of(constraint)).isEqualTo(Blame.MESSAGE);
  }

  @Test
  void anythingElseIsUnknown() {
    assertThat(of(new IllegalStateException("no SQL here"))).isEqualTo(Blame.UNKNOWN);
    assertThat(of(null)).isEqualTo(Blame.UNKNOWN);
    SQLException loop = state(null);
    loop.setNextException(loop);
    assertThat(of(loop)).isEqualTo(Blame.UNKNOWN);
  }
}
