package io.twinbox.bench.peers;

import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Runs an action right after the current Spring transaction commits, before any other synchronization. */
public final class AfterCommit {
  private AfterCommit() {}

  /** Registers {@code action} on the transaction bound to this thread. */
  public static void run(Runnable action) {
    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
      @Override
      public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
      }

      @Override
      public void afterCommit() {
        action.run();
      }
    });
  }
}
