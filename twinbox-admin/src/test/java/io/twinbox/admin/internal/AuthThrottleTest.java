package io.twinbox.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token bucket of failed authentications, on a clock the test moves. Pure logic. */
class AuthThrottleTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AuthThrottle throttle = new AuthThrottle(3, Duration.ofSeconds(30), now::get); // 1 per 10 s

  @Test
  void anAddressMayFailInABurstThenEarnsOneTryPerInterval() {
    for (int i = 0; i < 3; i++) {
      assertThat(throttle.check("10.0.0.1").allowed()).isTrue();
      throttle.failed("10.0.0.1");
    }
    AuthThrottle.Decision refused = throttle.check("10.0.0.1");
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfterSeconds()).isEqualTo(10);
    assertThat(refused.firstRefusal()).isTrue();
    assertThat(throttle.check("10.0.0.1").firstRefusal()).as("audited once per episode").isFalse();
    assertThat(throttle.check("10.0.0.2").allowed()).as("other addresses are not affected").isTrue();

    now.addAndGet(Duration.ofSeconds(4).toNanos());
    assertThat(throttle.check("10.0.0.1").retryAfterSeconds()).isEqualTo(6);
    now.addAndGet(Duration.ofSeconds(6).toNanos());
    assertThat(throttle.check("10.0.0.1").allowed()).as("one try earned after 10 s").isTrue();
    throttle.failed("10.0.0.1");
    AuthThrottle.Decision again = throttle.check("10.0.0.1");
    assertThat(again.allowed()).isFalse();
    assertThat(again.firstRefusal()).as("a new episode is audited again").isTrue();

    now.addAndGet(Duration.ofMinutes(5).toNanos());
    for (int i = 0; i < 3; i++) {
      assertThat(throttle.check("10.0.0.1").allowed()).as("the bucket refills to the burst, no more").isTrue();
      throttle.failed("10.0.0.1");
    }
    assertThat(throttle.check("10.0.0.1").allowed()).isFalse();
  }

  @Test
  void manyAddressesShareOneOverflowBucketOnceTheTableIsFull() {
    for (int i = 0; i < AuthThrottle.MAX_ADDRESSES; i++) {
      String a = "addr-" + i;
      for (int k = 0; k < 3; k++) {
        throttle.failed(a);
      }
    }
    // Every tracked address is limited, so none can be forgotten: newcomers share one bucket.
    for (int k = 0; k < 3; k++) {
      assertThat(throttle.check("new-" + k).allowed()).isTrue();
      throttle.failed("new-" + k);
    }
    assertThat(throttle.check("new-99").allowed()).as("the shared bucket is empty").isFalse();

    now.addAndGet(Duration.ofMinutes(5).toNanos()); // all buckets full again: forgotten on the next failure
    throttle.failed("fresh");
    assertThat(throttle.check("fresh").allowed()).isTrue();
    assertThat(throttle.check("new-99").allowed()).isTrue();
  }
}
