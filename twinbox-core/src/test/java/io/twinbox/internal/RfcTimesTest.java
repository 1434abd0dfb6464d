package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The shortcut reads what {@code OffsetDateTime.parse} reads, to the same instant, and nothing it refuses. */
class RfcTimesTest {
  private static Instant general(String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Test
  void readsWhatInstantToStringWritesAsTheGeneralParserDoes() {
    SplittableRandom r = new SplittableRandom(16);
    for (int i = 0; i < 200_000; i++) {
      Instant at = Instant.ofEpochSecond(r.nextLong(-62_167_219_200L, 253_402_300_800L), r.nextInt(1_000_000_000));
      if (i % 3 == 0) {
        at = Instant.ofEpochSecond(at.getEpochSecond(), r.nextInt(1_000) * 1_000_000L);
      } else if (i % 3 == 1) {
        at = Instant.ofEpochSecond(at.getEpochSecond());
      }
      String text = at.toString();
      assertThat(RfcTimes.utcOrNull(text)).as(text).isEqualTo(at).isEqualTo(general(text));
    }
  }

  @Test
  void leavesEveryOtherFormToTheGeneralParser() {
    String[] others = {
      "2026-12-02T10:15:30+01:00", "2026-12-02t10:15:30z", "2026-12-02T10:15:30.Z", "2026-12-02T10:15Z",
      "2026-12-02T10:15:30.1234567891Z", "+12026-12-02T10:15:30Z", "2026-02-30T10:15:30Z", "2026-13-02T10:15:30Z",
      "2026-12-02T24:00:00Z", "2026-12-02T23:60:00Z", "2026-12-02T23:59:60Z", "2026-12-02 10:15:30Z",
      "2026-12-0２T10:15:30Z", "2026-12-02T10:15:30,5Z", "2026-12-02T10:15:30.-5Z", "-026-12-02T10:15:30Z",
      "2026-12-02T10:15:30.1234Z ", "", "Z", "not a time at all, really not!"
    };
    for (String text : others) {
      Instant quick = RfcTimes.utcOrNull(text);
      if (quick != null) {
        assertThat(quick).as(text).isEqualTo(general(text));
      }
    }
    assertThat(RfcTimes.utcOrNull("2026-12-02T10:15:30+01:00")).isNull();
    assertThat(RfcTimes.utcOrNull("2026-02-30T10:15:30Z")).isNull();
    assertThat(RfcTimes.utcOrNull("2024-02-29T23:59:59.999999999Z")).isEqualTo(general("2024-02-29T23:59:59.999999999Z"));
    assertThat(RfcTimes.utcOrNull("0000-01-01T00:00:00Z")).isEqualTo(general("0000-01-01T00:00:00Z"));
  }
}
