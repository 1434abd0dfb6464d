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
}
