package io.twinbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** E1 as FAULTS.md specifies it: at least 50 process kills, every other fault kind twice, one seeded schedule. */
class NemesisPlanTest {
  private static final Scenario E1 = Scenario.matrix().stream().filter(s -> s.id().equals("E1")).findFirst()
      .orElseThrow();

  @Test
  void e1PlaysFiftyKillsAndEveryOtherKindTwiceWhereverItRuns() {
    Set<FaultKind> kafkaOnPostgres = EnumSet.allOf(FaultKind.class);
    Set<FaultKind> sharedServers = EnumSet.allOf(FaultKind.class);
    sharedServers.removeAll(EnumSet.of(FaultKind.BROKER_KILL, FaultKind.DB_RESTART));
    for (Set<FaultKind> supported : List.of(kafkaOnPostgres, sharedServers)) {
      List<FaultKind> plan = Nemesis.plan(E1, supported, new Random(42));
      Map<FaultKind, Long> counts = plan.stream().collect(Collectors.groupingBy(Function.identity(),
          Collectors.counting()));
      long kills = plan.stream().filter(FaultKind.KILLS::contains).count();
      assertThat(kills).isGreaterThanOrEqualTo(50);
      assertThat(counts.keySet()).containsAll(FaultKind.KILLS);
      Set<FaultKind> others = EnumSet.copyOf(supported);
      others.retainAll(E1.kinds());
      others.removeAll(FaultKind.KILLS);
      others.forEach(kind -> assertThat(counts.get(kind)).as(kind.name()).isEqualTo(2));
      assertThat(counts.keySet()).doesNotContainAnyElementsOf(FaultKind.WAL_ONLY)
          .doesNotContainAnyElementsOf(FaultKind.ROW_ONLY);
      assertThat(plan).hasSize(E1.faultCount(supported));
    }
  }

  @Test
  void theSameSeedReplaysTheSameScheduleAndAnotherSeedDoesNot() {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    assertThat(Nemesis.plan(E1, all, new Random(7))).isEqualTo(Nemesis.plan(E1, all, new Random(7)))
        .isNotEqualTo(Nemesis.plan(E1, all, new Random(8)));
  }

  @Test
  void aWalRowLeavesThePollingOnlyFaultsOut() {
    Scenario e1Wal = Scenario.matrix().stream().filter(s -> s.id().equals("E1-WAL")).findFirst().orElseThrow();
    assertThat(Nemesis.plan(e1Wal, EnumSet.allOf(FaultKind.class), new Random(1)))
        .doesNotContainAnyElementsOf(FaultKind.POLLING_ONLY).hasSizeGreaterThanOrEqualTo(50);
  }
}
