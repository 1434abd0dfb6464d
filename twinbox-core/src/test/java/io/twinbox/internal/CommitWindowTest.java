package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** FAULTS G2 and G3 in the WAL relay's position tracking: pure logic, no server. */
class CommitWindowTest {

  @Test
  void positionMovesOnlyOverAContiguousDonePrefixDespiteOutOfOrderAnswers() {
    CommitWindow w = new CommitWindow();
    CommitWindow.Tx t1 = tx(w, 1, 100, 2);
    CommitWindow.Tx t2 = tx(w, 2, 200, 1);
    CommitWindow.Tx t3 = tx(w, 3, 300, 1);
    assertThat(w.advance()).isEqualTo(-1);

    w.close(t3); // broker answers arrive out of order (G3)
    w.close(t2);
    assertThat(w.advance()).as("t1 still has open rows").isEqualTo(-1);
    w.close(t1);
    assertThat(w.advance()).as("t1 half done: several rows share its commit (G2)").isEqualTo(-1);
    w.close(t1);
    assertThat(w.advance()).isEqualTo(300);
    assertThat(w.empty()).isTrue();
  }

  @Test
  void aPartlyReceivedTransactionIsNeverPassed() {
    CommitWindow w = new CommitWindow();
    CommitWindow.Tx t1 = tx(w, 1, 100, 1);
    CommitWindow.Tx t2 = w.begin(2);
    w.open(t2);
    w.close(t1);
    w.close(t2);
    assertThat(w.advance()).as("t2's commit has not arrived").isEqualTo(100);
    assertThat(w.empty()).isFalse();
    assertThat(w.receivingOpen()).as("a graceful stop reads on to t2's commit").isTrue();
    w.commit(250, Instant.now());
    assertThat(w.receivingOpen()).isFalse();
    assertThat(w.advance()).isEqualTo(250);
  }

  @Test
  void transactionsWithoutOutboxRowsAreDoneAtCommit() {
    CommitWindow w = new CommitWindow();
    tx(w, 1, 100, 0);
    CommitWindow.Tx t2 = tx(w, 2, 200, 1);
    tx(w, 3, 300, 0);
    assertThat(w.advance()).isEqualTo(100);
    assertThat(w.oldestPendingCommit()).isNotNull();
    w.close(t2);
    assertThat(w.advance()).isEqualTo(300);
    assertThat(w.oldestPendingCommit()).isNull();
  }

  private static CommitWindow.Tx tx(CommitWindow w, long xid, long end, int rows) {
    CommitWindow.Tx t = w.begin(xid);
    for (int i = 0; i < rows; i++) {
      w.open(t);
    }
    w.commit(end, Instant.now());
    return t;
  }
}
