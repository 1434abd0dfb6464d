package io.twinbox.cli.internal;

import io.twinbox.spi.Printable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with a header row, columns padded to their widest cell. Cells are shown with
 * {@link Printable#of}: a control character in a value (ESC, BEL, a line break) is written as a
 * visible escape, never sent to the terminal. Not thread-safe.
 */
public final class Table {
  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  public Table(String... header) {
    this.columns = header.length;
    rows.add(header);
  }

  public Table row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("expected " + columns + " cells, got " + cells.length);
    }
    String[] r = new String[columns];
    for (int i = 0; i < columns; i++) {
      r[i] = cells[i] == null ? "-" : Printable.of(String.valueOf(cells[i]));
    }
    rows.add(r);
    return this;
  }

  public void print(PrintWriter out) {
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(r[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }
}
