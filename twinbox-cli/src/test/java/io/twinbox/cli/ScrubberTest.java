package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.cli.internal.Scrubber;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The second guard: a library that echoes a secret to stdout or stderr prints {@code ****} instead. */
class ScrubberTest {
  @Test
  void secretsPrintedByAnyoneAreMasked() {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Scrubber.install();
      Scrubber.addSecrets(Set.of("s3cret-value", "ab"));
      System.err.print("connecting with password s3cret-");
      System.err.println("value failed: ab");
      System.err.printf("again: %s%n", "s3cret-value");
      System.err.flush();
    } finally {
      System.setErr(original);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .isEqualTo("connecting with password **** failed: ab" + System.lineSeparator() + "again: ****"
            + System.lineSeparator());
  }
}
