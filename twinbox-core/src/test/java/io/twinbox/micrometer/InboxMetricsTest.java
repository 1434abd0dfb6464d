package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.twinbox.InboxMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InboxMetricsTest {
  @Test
  void refusedParksAreCountedPerConsumer() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InboxMetrics metrics = new InboxMetrics("payments");
    metrics.bindTo(registry);
    InboxMessage m = new InboxMessage("m1", "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null);

    metrics.parkFailed(m, "StoreException: could not park a message (SQLSTATE 08006)");
    metrics.parkFailed(m, "again");
    metrics.parked(m, "finally");

    assertThat(registry.get(TwinboxMetricNames.INBOX_PARK_FAILURES).tag("consumer", "payments").counter().count())
        .isEqualTo(2.0);
    assertThat(registry.get(TwinboxMetricNames.INBOX_MESSAGES).tag("outcome", "parked").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void commitLatencyIsTimedFromReceiptAndFromTheEventsTime() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InboxMetrics metrics = new InboxMetrics("payments");
    metrics.bindTo(registry);
    InboxMessage m = new InboxMessage("m1", "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null);

    metrics.committed(m, Duration.ofMillis(30), Duration.ofMillis(900));
    metrics.committed(m, Duration.ofMillis(10), null); // an event without a time: only the receipt timer

    Timer received = registry.get(TwinboxMetricNames.INBOX_COMMIT_LATENCY).tag("consumer", "payments")
        .tag("since", "received").timer();
    Timer event = registry.get(TwinboxMetricNames.INBOX_COMMIT_LATENCY).tag("consumer", "payments")
        .tag("since", "event").timer();
    assertThat(received.count()).isEqualTo(2);
    assertThat(received.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(40.0);
    assertThat(event.count()).isEqualTo(1);
    assertThat(event.max(TimeUnit.MILLISECONDS)).isEqualTo(900.0);
  }
}
