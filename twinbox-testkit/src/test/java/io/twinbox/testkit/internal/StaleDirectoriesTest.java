package io.twinbox.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaleDirectoriesTest {

  @Test
  void deletesOnlyDirectoriesWhoseOwnerIsGone(@TempDir Path parent) throws Exception {
    Path mine = Files.createDirectory(parent.resolve("kit-mine"));
    StaleDirectories.markOwned(mine);
    Path unmarked = Files.createDirectory(parent.resolve("kit-unmarked"));
    Path other = Files.createDirectory(parent.resolve("other-prefix"));
    Path orphan = Files.createDirectories(parent.resolve("kit-orphan").resolve("data"));
    Process dead = new ProcessBuilder("sleep", "60").start();
    Instant deadStart = dead.info().startInstant().orElseThrow();
    dead.destroyForcibly().waitFor();
    Files.writeString(orphan.getParent().resolve("owner"), dead.pid() + " " + deadStart);

    StaleDirectories.sweep(parent, "kit-");

    assertThat(orphan.getParent()).doesNotExist();
    assertThat(mine).exists();
    assertThat(unmarked).exists();
    assertThat(other).exists();
  }

  /**
   * Regression: a fault run's live Kafka broker lost its folder to another JVM's sweep — that JVM
   * read the owner's start a second off (the JDK's boot time is whole seconds from /proc/stat, and
   * it moves when the clock is adjusted), judged the owner gone and deleted the folder.
   */
  @Test
  void aLiveOwnerWhoseStartReadsASecondOffIsNotSwept(@TempDir Path parent) throws Exception {
    Path live = Files.createDirectory(parent.resolve("kit-live"));
    ProcessHandle self = ProcessHandle.current();
    Instant start = self.info().startInstant().orElseThrow();
    Files.writeString(live.resolve("owner"), self.pid() + " " + start.minusSeconds(1));
    Path reused = Files.createDirectory(parent.resolve("kit-reused"));
    Files.writeString(reused.resolve("owner"), self.pid() + " " + start.minusSeconds(3600));

    StaleDirectories.sweep(parent, "kit-");

    assertThat(live).exists();
    assertThat(reused).doesNotExist();
  }
}
