package io.twinbox.bench.peers;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

/**
 * The auto-configurations on the classpath whose class names start with a prefix. Spring Modulith and
 * namastack-outbox share the bench's classpath, and each registers its own
 * {@code applicationEventMulticaster} and its own background processing; each peer's application
 * excludes the other's auto-configurations ({@code spring.autoconfigure.exclude}) so that it runs
 * alone, as it would in an application that depends on only one of them.
 */
public final class AutoConfigurations {
  private AutoConfigurations() {}

  /** Comma-separated auto-configuration class names starting with {@code prefix} (none: empty). */
  public static String startingWith(String prefix) {
    List<String> names = new ArrayList<>();
    for (String candidate : ImportCandidates.load(AutoConfiguration.class, AutoConfigurations.class.getClassLoader())) {
      if (candidate.startsWith(prefix)) {
        names.add(candidate);
      }
    }
    return String.join(",", names);
  }
}
