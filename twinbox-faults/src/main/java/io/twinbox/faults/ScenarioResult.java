package io.twinbox.faults;

import java.util.Map;

/**
 * One scenario's outcome: the checker's verdict and what the nemesis did.
 *
 * @param scenario the matrix row
 * @param broker the broker, e.g. {@code kafka}
 * @param store the producer's database, {@code postgresql} or {@code mariadb}
 * @param events events the producer wrote (committed and rolled back)
 * @param seed the nemesis and workload seed
 * @param verdict the checker's verdict after the drain
 * @param faults faults applied, per kind
 * @param fenced completions the relays reported as fenced (lease lost)
 * @param stalls the relays' longest process stall and renewals past the TTL (what explains fencing)
 * @param drainMs from the last write to the end of the drain
 * @param runtimeMs the whole scenario
 * @param figures the row's own expected figures ({@link RowChecks}), judged with the invariants
 */
public record ScenarioResult(Scenario scenario, String broker, String store, int events, long seed,
    FaultVerdict verdict, Map<FaultKind, Integer> faults, long fenced, RelayStalls stalls, long drainMs,
    long runtimeMs, RowFigures figures) {

  /** A result of a row without figures of its own. */
  public ScenarioResult(Scenario scenario, String broker, String store, int events, long seed,
      FaultVerdict verdict, Map<FaultKind, Integer> faults, long fenced, RelayStalls stalls, long drainMs,
      long runtimeMs) {
    this(scenario, broker, store, events, seed, verdict, faults, fenced, stalls, drainMs, runtimeMs, RowFigures.NONE);
  }

  /** Every invariant zero and the row's own figures as expected. */
  public boolean ok() {
    return verdict.ok() && figures.ok();
  }

  public int faultTotal() {
    return faults.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * {@code [B1 kafka/postgresql] seed=.. faults=.. <verdict line> fenced=.. relayStallMs=.. renewalsPastTtl=..
   * drainMs=.. runtimeMs=.. OK}.
   */
  public String line() {
    return "[" + scenario.id() + " " + broker + "/" + store + "] seed=" + seed + " faults=" + faultTotal() + " "
        + verdict.line() + " fenced=" + fenced + " " + stalls.words() + " drainMs=" + drainMs + " runtimeMs=" + runtimeMs + " "
        + (figures.text().isEmpty() ? "" : "row: " + figures.text() + " ") + (ok() ? "OK" : "FAIL");
  }
}
