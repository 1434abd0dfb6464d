package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reads the stall figures out of relay log lines as RelayMain and the lease keeper print them. */
class RelayStallsTest {
  @Test
  void takesTheLongestStallOfAnyStartAndCountsRenewalsPastTheTtl() {
    RelayStalls s = RelayStalls.of(List.of(
        "RELAY-STATS published=10 retried=0 dead=0 fenced=0 outages=0 batches=2",
        "RELAY-STALL 06:40:01.123 the process stood still for ~2950 ms (ticker due every 500 ms)",
        "06:40:01.130 [twinbox-lease-keeper] WARN i.t.internal.LeaseKeeper - node relay-0 renewed its leases"
            + " 3611 ms after the previous renewal (due every 666 ms; the renewal took 12 ms; lease ttl 2000 ms): this"
            + " process or its database stalled (GC, CPU starvation, SIGSTOP, a slow database). Past the ttl: another"
            + " node may have taken partitions over and fenced completions.",
        "06:40:02.000 [twinbox-lease-keeper] WARN i.t.internal.LeaseKeeper - node relay-0 renewed its leases"
            + " 1700 ms after the previous renewal (due every 666 ms; the renewal took 3 ms; lease ttl 2000 ms): this"
            + " process or its database stalled (GC, CPU starvation, SIGSTOP, a slow database). Past the fail-closed"
            + " deadline: workers paused publishing until it returned.",
        "RELAY-FINAL published=10 retried=0 dead=0 fenced=3 outages=0 batches=2 maxStallMs=164",
        "RELAY-FINAL published=12 retried=0 dead=0 fenced=0 outages=0 batches=2 maxStallMs=40"));
    assertThat(s.maxStallMs()).isEqualTo(2950);
    assertThat(s.renewalsPastTtl()).isEqualTo(1);
    assertThat(s.words()).isEqualTo("relayStallMs=2950 renewalsPastTtl=1");
  }

  @Test
  void aQuietRunHasNoStalls() {
    assertThat(RelayStalls.of(List.of("RELAY-FINAL published=1 fenced=0 maxStallMs=0"))).isEqualTo(new RelayStalls(0, 0));
  }
}
