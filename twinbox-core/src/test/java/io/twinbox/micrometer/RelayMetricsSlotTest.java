package io.twinbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.ChangeFeedException;
import io.twinbox.ChangeFeedStatus;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The WAL relay's slot meters: NaN until the first report (and for a polling relay), then its values. */
class RelayMetricsSlotTest {

  @Test
  void slotLagConfirmedPositionAndTimeSinceConfirmAreGauges() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMetrics metrics = new RelayMetrics("orders");
    metrics.bindTo(registry);
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LAG_BYTES).tag("relay", "orders").gauge().value()).isNaN();

    metrics.changeFeed(new ChangeFeedStatus("twinbox_orders", 0x1_0000_0010L, 4_096, Duration.ofMillis(1_500),
        Duration.ofMillis(250)));

    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LAG_BYTES).gauge().value()).isEqualTo(4_096);
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_CONFIRMED_LSN).gauge().value()).isEqualTo(0x1_0000_0010L);
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LAG).timeGauge().value(TimeUnit.MILLISECONDS))
        .isEqualTo(1_500);
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_SINCE_CONFIRM).timeGauge().value(TimeUnit.MILLISECONDS))
        .isEqualTo(250);

    metrics.changeFeed(new ChangeFeedStatus("twinbox_orders", 0x1_0000_0010L, -1, Duration.ZERO, Duration.ZERO));
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LAG_BYTES).gauge().value()).as("lag unreadable").isNaN();
  }

  @Test
  void slotLostIsOneOnceTheRelayStoppedStreaming() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMetrics metrics = new RelayMetrics("orders");
    metrics.bindTo(registry);
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LOST).tag("relay", "orders").gauge().value())
        .as("a polling relay, or before the first slot status").isNaN();
    metrics.changeFeed(new ChangeFeedStatus("twinbox_orders", 16, 0, Duration.ZERO, Duration.ZERO));
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LOST).gauge().value()).isZero();

    metrics.changeFeedLost(new ChangeFeedException(ChangeFeedException.Problem.SLOT_LOST, "dropped"));
    assertThat(registry.get(TwinboxMetricNames.RELAY_SLOT_LOST).gauge().value()).isEqualTo(1);
  }
}
