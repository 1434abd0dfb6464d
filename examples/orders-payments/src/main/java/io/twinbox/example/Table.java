package io.twinbox.example;

import java.io.PrintWriter;

/** Prints the verification table of a {@link DemoRun.Result}. Stateless. */
final class Table {
  private Table() {}

  static void print(PrintWriter out, DemoRun.Result result) {
    int name = "check".length();
    int expected = "expected".length();
    int actual = "actual".length();
    for (Check c : result.checks()) {
      name = Math.max(name, c.name().length());
      expected = Math.max(expected, c.expected().length());
      actual = Math.max(actual, c.actual().length());
    }
    String row = "%-" + name + "s  %" + expected + "s  %" + actual + "s  %s%n";
    String rule = "-".repeat(name + expected + actual + 10);
    out.println();
    out.println("Verification (SQL over both databases, after the drain)");
    out.println(rule);
    out.printf(row, "check", "expected", "actual", "");
    out.println(rule);
    for (Check c : result.checks()) {
      if (!c.isInfo()) {
        out.printf(row, c.name(), c.expected(), c.actual(), c.ok() ? "ok" : "FAIL");
      }
    }
    out.println(rule);
    for (Check c : result.checks()) {
      if (c.isInfo()) {
        out.printf(row, c.name(), "", c.actual(), "");
      }
    }
    out.println(rule);
    long failed = result.checks().stream().filter(c -> !c.ok()).count();
    out.println(failed == 0 ? "PASSED: every check holds - lost = 0, duplicate effects = 0."
        : "FAILED: " + failed + " check(s) did not hold.");
    out.flush();
  }
}
