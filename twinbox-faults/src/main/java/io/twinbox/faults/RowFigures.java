package io.twinbox.faults;

/**
 * A row's own expected figures (FAULTS.md's Report column: attempts to FAILED, the parked count,
 * ...), judged after the drain next to the checker's invariants; {@link #NONE} for a row that has
 * none beyond them. Immutable.
 *
 * @param text the figures and what was expected of them, e.g. {@code failed=0 (expected 0)}
 * @param ok every figure as expected
 */
record RowFigures(String text, boolean ok) {
  static final RowFigures NONE = new RowFigures("", true);
}
