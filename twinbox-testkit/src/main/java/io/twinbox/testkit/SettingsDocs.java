package io.twinbox.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The generator of the documentation's configuration tables (docs/configuration.md, docs/cli.md, docs/spring-boot.md) and of other files derived from the settings
 * catalogues, for the agreement tests: they render the expected text and compare it with the
 * checked-in one. Run them with {@code -Dtwinbox.readme.write=true} to rewrite the file instead
 * (then commit the change). A generated block sits between {@code <!-- BEGIN GENERATED: id -->}
 * and {@code <!-- END GENERATED: id -->}. Stateless; thread-safe.
 */
public final class SettingsDocs {
  /** Set this system property to {@code true} to rewrite the generated files instead of comparing. */
  public static final String WRITE = "twinbox.readme.write";

  private SettingsDocs() {}

  /** A column of a settings table: header and cell. */
  public record Column(String header, BiFunction<Catalogue<?>, Setting<?>, String> cell) {}

  /** The standard columns after the name: default, allowed values, meaning (secret settings say so). */
  public static List<Column> details() {
    return List.of(
        new Column("Default", (c, s) -> s.defaultValue() != null ? code(s.defaultText()) : s.defaultText()),
        new Column("Allowed", (c, s) -> s.limits()),
        new Column("Meaning", (c, s) -> s.description() + (s.secret() ? " Secret: never shown." : "")));
  }

  /** A Markdown table, one row per setting of every catalogue, in order. */
  public static String table(List<Catalogue<?>> catalogues, List<Column> columns) {
    StringBuilder b = new StringBuilder("|");
    columns.forEach(c -> b.append(' ').append(c.header()).append(" |"));
    b.append("\n|");
    columns.forEach(c -> b.append(" --- |"));
    b.append('\n');
    for (Catalogue<?> catalogue : catalogues) {
      for (Setting<?> s : catalogue.settings()) {
        b.append('|');
        columns.forEach(c -> b.append(' ').append(escape(c.cell().apply(catalogue, s))).append(" |"));
        b.append('\n');
      }
    }
    return b.toString();
  }

  /** {@code `text`}, or "" for "". */
  public static String code(String text) {
    return text.isEmpty() ? "" : "`" + text + "`";
  }

  private static String escape(String cell) {
    return cell.replace("|", "\\|").replace("\n", " ");
  }

  /** The repository's root (the directory with README.md and twinbox-core), found upwards from the working directory. */
  public static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("README.md")) && Files.exists(dir.resolve("twinbox-core"))) {
        return dir;
      }
    }
    throw new IllegalStateException("README.md not found above " + Path.of("").toAbsolutePath());
  }

  /** A page of the documentation: {@code docs/<name>} under {@link #root()}. */
  public static Path doc(String name) {
    return root().resolve("docs").resolve(name);
  }

  /**
   * Asserts that the block {@code id} of {@code file} is {@code content} (or rewrites it).
   *
   * @throws AssertionError naming the block when it differs or its markers are missing
   */
  public static void assertBlock(Path file, String id, String content) {
    String text = read(file);
    String begin = "<!-- BEGIN GENERATED: " + id + " -->\n";
    String end = "<!-- END GENERATED: " + id + " -->";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new AssertionError(file + " has no block '" + id + "' (" + begin.trim() + " … " + end + ")");
    }
    String current = text.substring(from + begin.length(), to);
    if (Boolean.getBoolean(WRITE)) {
      write(file, text.substring(0, from + begin.length()) + content + text.substring(to));
      return;
    }
    assertEquals(content, current, file.getFileName() + " block '" + id + "' differs from the settings catalogues;"
        + " regenerate it with -D" + WRITE + "=true");
  }

  /** Asserts that the whole of {@code file} is {@code content} (or rewrites it). */
  public static void assertFile(Path file, String content) {
    if (Boolean.getBoolean(WRITE)) {
      write(file, content);
      return;
    }
    assertEquals(content, read(file), file + " differs from the settings catalogues; regenerate it with -D" + WRITE
        + "=true");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
