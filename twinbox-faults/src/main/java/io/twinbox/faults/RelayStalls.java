package io.twinbox.faults;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the relay logs of a run say about stalls (issue 21): the longest time a relay process stood
 * still (its stats ticker ran late: CPU starvation, a GC pause, SIGSTOP) and how many lease
 * renewals came more than one lease TTL after the previous one (the process or its database path
 * stalled). Only such a renewal lets the other relay take partitions over and fence completions,
 * so a non-zero Fenced figure in a row without relay faults is explained by these two numbers.
 *
 * @param maxStallMs the longest process stall any relay saw, in ms
 * @param renewalsPastTtl renewals that came later than the TTL, over all relays
 */
record RelayStalls(long maxStallMs, int renewalsPastTtl) {
  private static final Pattern STALL = Pattern.compile("maxStallMs=(\\d+)|stood still for ~(\\d+) ms");
  /** The keeper's words for a renewal past the TTL (LeaseKeeper.reportStall). */
  static final String PAST_TTL = "Past the ttl: another node may have taken partitions over";

  /** From the relays' log lines (all starts). */
  static RelayStalls of(List<String> lines) {
    long max = 0;
    int past = 0;
    for (String line : lines) {
      Matcher m = STALL.matcher(line);
      while (m.find()) {
        max = Math.max(max, Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2)));
      }
      if (line.contains(PAST_TTL)) {
        past++;
      }
    }
    return new RelayStalls(max, past);
  }

  /** {@code "relayStallMs=.. renewalsPastTtl=.."}, for a result line. */
  String words() {
    return "relayStallMs=" + maxStallMs + " renewalsPastTtl=" + renewalsPastTtl;
  }
}
