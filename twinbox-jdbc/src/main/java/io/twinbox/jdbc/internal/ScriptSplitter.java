package io.twinbox.jdbc.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a MySQL/MariaDB script into statements the way its command-line client (and Flyway)
 * does: statements end with the current delimiter at the end of a line, {@code DELIMITER x} lines
 * change it, and lines that are only {@code --} comments are dropped.
 */
public final class ScriptSplitter {
  private ScriptSplitter() {}

  public static List<String> split(String script) {
    List<String> statements = new ArrayList<>();
    String delimiter = ";";
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\r?\n")) {
      String trimmed = line.trim();
      if (trimmed.toUpperCase(java.util.Locale.ROOT).startsWith("DELIMITER ")) {
        delimiter = trimmed.substring("DELIMITER ".length()).trim();
        continue;
      }
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(delimiter)) {
        String text = current.toString().trim();
        statements.add(text.substring(0, text.length() - delimiter.length()).trim());
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      statements.add(current.toString().trim());
    }
    return statements;
  }
}
