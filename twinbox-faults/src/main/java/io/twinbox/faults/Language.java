package io.twinbox.faults;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Row B8DE: every error message the library sees is in German — the server's ({@code lc_messages}
 * of the row's private cluster) and the JDBC driver's own (the child JVMs run with a German
 * default locale, {@code JAVA_TOOL_OPTIONS}). Errors must be told apart by SQLSTATE; a check of
 * English text would miss all of them.
 */
final class Language {
  /** PostgreSQL's German for "division by zero". */
  private static final String GERMAN_DIVISION_BY_ZERO = "Division durch Null";

  private Language() {}

  /** The child environment for the scenario's locale; empty when it has none. */
  static Map<String, String> environment(Scenario scenario) {
    String locale = scenario.databaseLocale();
    if (locale == null) {
      return Map.of();
    }
    Locale l = Locale.forLanguageTag(locale.replaceFirst("\\..*$", "").replace('_', '-'));
    return Map.of("JAVA_TOOL_OPTIONS", "-Duser.language=" + l.getLanguage() + " -Duser.country=" + l.getCountry());
  }

  /**
   * Checks that the server answers in German (a division by zero); returns its message.
   *
   * @throws IllegalStateException when it does not (the locale is missing on this machine)
   */
  static String verify(DataSource ds) {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("SELECT 1/0");
      throw new IllegalStateException("SELECT 1/0 did not fail");
    } catch (SQLException e) {
      String message = String.valueOf(e.getMessage());
      if (!message.contains(GERMAN_DIVISION_BY_ZERO)) {
        throw new IllegalStateException("the database does not answer in German (" + message + "): generate the "
            + "locale first, e.g. localedef -i de_DE -f UTF-8 de_DE.UTF-8", e);
      }
      return message + " (SQLSTATE " + e.getSQLState() + ")";
    }
  }
}
