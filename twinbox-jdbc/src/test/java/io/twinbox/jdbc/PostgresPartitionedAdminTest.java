package io.twinbox.jdbc;

import io.twinbox.contract.AdminContract;
import io.twinbox.contract.StoreFixture;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The operator contract on PostgreSQL with the outbox partitioned by time. One test of the contract
 * does not apply: it expects {@code purgePublished} to delete single rows in batches of its limit,
 * while a partitioned outbox removes history by dropping whole partitions, never by row DELETEs
 * ({@link PostgresPartitionedOutboxTest} proves that purge instead).
 */
@ExtendWith(PostgresPartitionedAdminTest.RowPurgeDoesNotApply.class)
class PostgresPartitionedAdminTest extends AdminContract {
  static final String ROW_PURGE_TEST = "publishedRowsArePurgedInSmallBatches";

  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.postgresPartitioned();
  }

  /** Disables the row-batch purge test, by name, with the reason above. */
  static final class RowPurgeDoesNotApply implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return context.getTestMethod().filter(m -> m.getName().equals(ROW_PURGE_TEST))
          .map(m -> ConditionEvaluationResult.disabled("a partitioned outbox purges whole partitions, not rows in"
              + " batches (see PostgresPartitionedOutboxTest)"))
          .orElse(ConditionEvaluationResult.enabled("applies to a partitioned outbox"));
    }
  }
}
