package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's {@code io.twinbox.internal} is core's alone: no other module may use it, in main or test
 * code, by import or by qualified name. What a broker module or a store needs is public in {@code
 * io.twinbox.spi}. Run in core's build, which comes first in the reactor, so that a new use
 * anywhere fails the build before the module that added it is compiled. A source scan rather than
 * ArchUnit or JPMS: it needs no new dependency and covers test code and modules not yet built.
 */
class NoInternalImportsTest {
  /** A use of core's internal package; other modules' own {@code io.twinbox.<module>.internal} are fine. */
  private static final Pattern USE = Pattern.compile("\\bio\\.twinbox\\.internal\\.");

  @Test
  void noModuleButCoreUsesCoreInternals() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    assertThat(root.resolve("twinbox-core/pom.xml")).as("the reactor root, seen from twinbox-core").exists();
    List<String> uses = new ArrayList<>();
    List<Path> scanned = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !root.relativize(p).startsWith("twinbox-core"))
          .filter(p -> !root.relativize(p).toString().contains("/target/"))
          .filter(p -> !root.relativize(p).startsWith(".git"))
          .forEach(p -> {
            scanned.add(p);
            uses.addAll(uses(root, p));
          });
    }
    assertThat(scanned).as("the other modules' sources were found").hasSizeGreaterThan(100);
    assertThat(uses).as("uses of io.twinbox.internal outside twinbox-core (make what is needed public in"
        + " io.twinbox.spi instead)").isEmpty();
  }

  @Test
  void theScanFindsAnImportAndAQualifiedName() {
    assertThat(USE.matcher("import io.twinbox.internal.Reasons;").find()).isTrue();
    assertThat(USE.matcher("x = io.twinbox.internal.Reasons.of(e);").find()).isTrue();
    assertThat(USE.matcher("import io.twinbox.kafka.internal.KafkaSource;").find()).isFalse();
  }

  private static List<String> uses(Path root, Path file) {
    List<String> found = new ArrayList<>();
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = USE.matcher(lines.get(i));
        if (m.find()) {
          found.add(root.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }
}
