package io.twinbox.example;

import java.util.Locale;

/**
 * One row of the verification table: a check with an expected and an actual value, or a figure
 * that is only reported ({@link #info}).
 *
 * @param name what is checked
 * @param expected the expected value as shown; empty for a figure
 * @param actual the measured value as shown
 * @param ok whether the check passed (always true for a figure)
 */
public record Check(String name, String expected, String actual, boolean ok) {

  /** A check of two counts. */
  static Check equal(String name, long expected, long actual) {
    return new Check(name, count(expected), count(actual), expected == actual);
  }

  /** A check of two amounts of money, in cents, shown as currency units. */
  static Check equalMoney(String name, long expectedCents, long actualCents) {
    return new Check(name, money(expectedCents), money(actualCents), expectedCents == actualCents);
  }

  /** A figure, not a check. */
  static Check info(String name, String value) {
    return new Check(name, "", value, true);
  }

  boolean isInfo() {
    return expected.isEmpty();
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String money(long cents) {
    return String.format(Locale.ROOT, "%s%,d.%02d", cents < 0 ? "-" : "", Math.abs(cents) / 100, Math.abs(cents) % 100);
  }
}
