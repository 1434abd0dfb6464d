package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation holds together: every relative link of the README, BENCHMARKS.md,
 * FAULTS-REPORT.md and {@code docs/*.md} reaches a file that exists and, with a {@code #fragment},
 * a heading of that file (GitHub's anchors); every page of {@code docs/} is linked from the README,
 * so a newcomer reading only the README finds every topic. Pure logic over the checked-in files.
 */
class DocsLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

  @Test
  void everyRelativeLinkReachesAFileAndAHeading() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      for (String target : links(page)) {
        if (target.matches("^[a-z]+:.*")) {
          continue; // http:, https:, mailto: — not ours to check offline
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(to)) {
          broken.add(name(page) + ": " + target + " (no file " + name(to) + ")");
        } else if (hash >= 0 && to.toString().endsWith(".md") && !anchors(to).contains(target.substring(hash + 1))) {
          broken.add(name(page) + ": " + target + " (no heading #" + target.substring(hash + 1) + " in " + name(to) + ")");
        }
      }
    }
    assertThat(broken).as("broken links among %d checked", checked).isEmpty();
    assertThat(checked).as("links checked").isGreaterThan(20);
  }

  @Test
  void theReadmeLinksEveryPageOfTheDocs() throws IOException {
    Path root = SettingsDocs.root();
    Set<String> linked = new HashSet<>();
    for (String target : links(root.resolve("README.md"))) {
      linked.add(target.replaceFirst("#.*", ""));
    }
    List<String> unlinked = new ArrayList<>();
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).forEach(p -> {
        if (!linked.contains("docs/" + p.getFileName())) {
          unlinked.add("docs/" + p.getFileName());
        }
      });
    }
    assertThat(unlinked).as("pages of docs/ the README does not link").isEmpty();
  }

  private static List<Path> pages() throws IOException {
    Path root = SettingsDocs.root();
    List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("BENCHMARKS.md"),
        root.resolve("FAULTS-REPORT.md")));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** The link targets of a Markdown file, outside fenced code blocks. */
  private static List<String> links(Path page) throws IOException {
    List<String> targets = new ArrayList<>();
    boolean fence = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        fence = !fence;
      } else if (!fence) {
        Matcher m = LINK.matcher(line);
        while (m.find()) {
          targets.add(m.group(1));
        }
      }
    }
    return targets;
  }

  /** GitHub's heading anchors of a Markdown file: lower case, punctuation dropped, spaces to dashes. */
  static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean fence = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        fence = !fence;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (!fence && m.matches()) {
        String a = m.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
        for (int n = 0; !anchors.add(n == 0 ? a : a + "-" + n); n++) {
          // a repeated heading gets -1, -2, … as on GitHub
        }
      }
    }
    return anchors;
  }

  private static String name(Path p) {
    return SettingsDocs.root().relativize(p).toString();
  }
}
