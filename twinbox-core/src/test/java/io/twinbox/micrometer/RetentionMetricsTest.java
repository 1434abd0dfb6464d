package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link RetentionMetrics} counts what retention reports, and every meter it registers (name and
 * tags) is a row of docs/operations.md's metrics table.
 */
class RetentionMetricsTest {
  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");

  @Test
  void countsRowsByKindRoundsByOutcomeAndTheLastRoundsDuration() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RetentionMetrics metrics = new RetentionMetrics();
    metrics.bindTo(registry);
    metrics.deleted(RetentionListener.Kind.PUBLISHED_EVENTS, 500);
    metrics.deleted(RetentionListener.Kind.PUBLISHED_EVENTS, 17);
    metrics.deleted(RetentionListener.Kind.INBOX_RECORDS, 3);
    metrics.roundCompleted(new Retention.Result(517, 0, 3), Duration.ofMillis(1_250));
    metrics.roundSkipped();
    metrics.roundSkipped();
    metrics.roundFailed(new IllegalStateException("database down"));
    assertThat(registry.get(TwinboxMetricNames.RETENTION_DELETED).tag("kind", "published.events").counter().count())
        .isEqualTo(517);
    assertThat(registry.get(TwinboxMetricNames.RETENTION_DELETED).tag("kind", "inbox.records").counter().count())
        .isEqualTo(3);
    assertThat(registry.get(TwinboxMetricNames.RETENTION_DELETED).tag("kind", "supplied.ids").counter().count())
        .isZero();
    assertThat(registry.get(TwinboxMetricNames.RETENTION_ROUNDS).tag("outcome", "completed").counter().count())
        .isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.RETENTION_ROUNDS).tag("outcome", "skipped").counter().count())
        .isEqualTo(2);
    assertThat(registry.get(TwinboxMetricNames.RETENTION_ROUNDS).tag("outcome", "failed").counter().count())
        .isEqualTo(1);
    assertThat(registry.get(TwinboxMetricNames.RETENTION_LAST_ROUND_DURATION).timeGauge().value(TimeUnit.MILLISECONDS))
        .isEqualTo(1_250);
  }

  @Test
  void everyMeterIsInTheOperationsMetricsTable() throws Exception {
    String doc = Files.readString(OPERATIONS, StandardCharsets.UTF_8);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new RetentionMetrics().bindTo(registry);
    assertThat(registry.getMeters()).hasSize(8);
    for (Meter m : registry.getMeters()) {
      String name = m.getId().getName();
      String row = doc.lines().filter(l -> l.startsWith("| `" + name + "{") || l.startsWith("| `" + name + "`"))
          .findFirst().orElse(null);
      assertThat(row).as(name + " has a row in docs/operations.md").isNotNull();
      m.getId().getTags().forEach(t -> assertThat(row).as(name + " documents " + t).contains(t.getValue()));
    }
  }
}
