package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.CompletionMode;
import io.twinbox.spi.Completion;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PartitionLease;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.contract.Sql;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The completion is bounded by the batch's {@code created_at} so that a partitioned outbox visits
 * only the partitions of the batch. A row whose {@code created_at} changed after the claim (by hand;
 * on a partitioned outbox that moves it to another partition) is still completed, never counted as
 * fenced: otherwise it would be republished for ever.
 */
class PostgresCompletionBoundTest {
  @ParameterizedTest(name = "{0}, partitioned {1}")
  @CsvSource({"MARK, false", "DELETE, false", "MARK, true", "DELETE, true"})
  void aRowRedatedAfterTheClaimIsStillCompleted(CompletionMode mode, boolean partitioned) throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create()) {
      JdbcStore.Builder builder = JdbcStore.builder(db.dataSource());
      JdbcStore store = (partitioned ? builder.partitionedOutbox() : builder).build();
      store.migrate();
      Sql.exec(db.dataSource(), """
          INSERT INTO twinbox_outbox (id, aggregate_type, aggregate_id, sequence, type, version, payload)
          SELECT gen_random_uuid(), 'Order', 'o' || g, 1, 'OrderCreated', 1, '{}' FROM generate_series(1, 20) g""");
      List<PartitionLease> leases = store.acquire("bound", store.partitionCount(), Duration.ofMinutes(5));
      List<OutboxMessage> claimed = store.claim("bound", leases, 100).stream().map(OutboxMessage.class::cast).toList();
      assertThat(claimed).hasSize(20);
      Sql.exec(db.dataSource(), "UPDATE twinbox_outbox SET created_at = '2001-02-03 04:05:06+00'"
          + " WHERE aggregate_id IN ('o3', 'o17')");

      Completion c = store.complete("bound", leases, claimed, List.of(), mode);

      assertThat(c.completed()).as("completed").isEqualTo(20);
      assertThat(c.fenced()).as("fenced").isZero();
      assertThat(Sql.count(db.dataSource(), "SELECT count(*) FROM twinbox_outbox WHERE status = 'PENDING'"))
          .as("left pending").isZero();
    }
  }
}
