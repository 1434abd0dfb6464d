package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {
  @Test
  void idsAreVersion7AndStrictlyIncreasing() {
    UUID prev = UuidV7.next();
    for (int i = 0; i < 100_000; i++) {
      UUID next = UuidV7.next();
      assertThat(next.version()).isEqualTo(7);
      assertThat(next.variant()).isEqualTo(2);
      assertThat(Long.compareUnsigned(next.getMostSignificantBits(), prev.getMostSignificantBits())).isPositive();
      prev = next;
    }
    long millis = prev.getMostSignificantBits() >>> 16;
    assertThat(millis).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(5_000L));
  }
}
