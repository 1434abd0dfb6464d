package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void delaysGrowExponentiallyUpToTheCapWithFullJitter() {
    RetryPolicy p = RetryPolicy.builder().backoff(Duration.ofMillis(100), Duration.ofMillis(1000)).build();
    for (int i = 0; i < 200; i++) {
      assertThat(p.delayAfter(1).toMillis()).isBetween(0L, 100L);
      assertThat(p.delayAfter(3).toMillis()).isBetween(0L, 400L);
      assertThat(p.delayAfter(30).toMillis()).isBetween(0L, 1000L);
    }
    long distinct = java.util.stream.IntStream.range(0, 50).mapToObj(i -> p.delayAfter(4)).distinct().count();
    assertThat(distinct).as("jitter spreads retries").isGreaterThan(10);
  }

  @Test
  void withoutJitterTheDelayIsExact() {
    RetryPolicy p = RetryPolicy.builder().backoff(Duration.ofMillis(100), Duration.ofSeconds(10)).jitter(0).build();
    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.delayAfter(4)).isEqualTo(Duration.ofMillis(800));
    assertThat(p.exhausted(9)).isFalse();
    assertThat(p.exhausted(10)).isTrue();
  }

  @Test
  void badSettingsNameTheProperty() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0)).hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> RetryPolicy.builder().jitter(1.5)).hasMessageContaining("jitter");
    assertThatThrownBy(() -> RetryPolicy.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("initialDelay");
  }
}
