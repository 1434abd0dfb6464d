package io.twinbox.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with a header row, columns padded to their widest cell. Not thread-safe. */
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
      r[i] = cells[i] == null ? "-" : String.valueOf(cells[i]).replaceAll("[\\r\\n\\t]+", " ");
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
