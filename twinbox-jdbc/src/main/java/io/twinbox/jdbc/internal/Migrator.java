package io.twinbox.jdbc.internal;

import io.twinbox.StoreException;
import io.twinbox.jdbc.SqlDialect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the dialect's scripts from {@code db/<dialect>/} that are not yet recorded in
 * {@code twinbox_schema_version}, in one transaction under a database lock. The scripts are plain
 * SQL and idempotent on their own, so Flyway or Liquibase users can apply them instead.
 */
public final class Migrator {
  private static final Logger log = LoggerFactory.getLogger(Migrator.class);

  private static final String VERSION_TABLE = """
      CREATE TABLE IF NOT EXISTS twinbox_schema_version (
        script     varchar(255) PRIMARY KEY,
        applied_at timestamp    NOT NULL DEFAULT CURRENT_TIMESTAMP)""";

  private Migrator() {}

  public static void migrate(Connection c, SqlDialect dialect) throws SQLException {
    migrate(c, dialect, List.of());
  }

  /** As {@link #migrate(Connection, SqlDialect)}, then {@code optIn} scripts (relative to {@code db/<dialect>/}). */
  public static void migrate(Connection c, SqlDialect dialect, List<String> optIn) throws SQLException {
    dialect.lockForMigration(c);
    try {
      apply(c, dialect, optIn);
    } finally {
      dialect.unlockAfterMigration(c);
    }
  }

  private static void apply(Connection c, SqlDialect dialect, List<String> optIn) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(VERSION_TABLE);
    }
    Set<String> applied = new HashSet<>();
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT script FROM twinbox_schema_version")) {
      while (rs.next()) {
        applied.add(rs.getString(1));
      }
    }
    List<String> scripts = new ArrayList<>(dialect.migrations());
    scripts.addAll(optIn);
    for (String script : scripts) {
      if (applied.contains(script)) {
        continue;
      }
      String path = "db/" + dialect.name() + "/" + script;
      for (String statement : dialect.statements(read(path))) {
        try (Statement st = c.createStatement()) {
          st.execute(statement);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO twinbox_schema_version (script) VALUES (?)")) {
        ps.setString(1, script);
        ps.executeUpdate();
      }
      log.info("applied Twinbox schema script {}", path);
    }
  }

  private static String read(String path) {
    try (InputStream in = Migrator.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new StoreException("schema script " + path + " is missing from the class path", null);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("could not read schema script " + path, e);
    }
  }
}
