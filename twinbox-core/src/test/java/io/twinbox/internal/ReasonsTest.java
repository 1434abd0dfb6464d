package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.Printable;
import org.junit.jupiter.api.Test;

class ReasonsTest {
  /** An exception's message often quotes what came off the wire: it must not forge log lines. */
  @Test
  void aReasonCannotCarryControlCharactersIntoALogLine() {
    String reason = Reasons.of(new IllegalArgumentException("bad type 'x\u001b[2J'\n12:00:00 INFO all good\u202e"));

    assertThat(reason).isEqualTo(
        "IllegalArgumentException: bad type 'x\\x1b[2J'\\n12:00:00 INFO all good\\u202e");
    assertThat(reason).doesNotContain("\n", "\u001b", "\u202e");
  }

  @Test
  void aReasonIsClippedAfterItsEscapesAreWritten() {
    String reason = Reasons.clip("\u0007".repeat(2_000));

    assertThat(reason).hasSize(Reasons.MAX).endsWith("…").startsWith("\\x07\\x07");
  }

  @Test
  void printableLeavesOrdinaryTextAloneAndNullNull() {
    assertThat(Printable.of("Order o-42 ünïcödé ✓")).isEqualTo("Order o-42 ünïcödé ✓");
    assertThat(Printable.of(null)).isNull();
  }
}
