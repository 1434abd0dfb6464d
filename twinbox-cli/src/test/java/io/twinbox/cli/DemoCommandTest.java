package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code twinbox demo} without the example on the class path: it runs the README's Maven command in
 * the checkout and passes the demo's options on, or says how when there is no checkout.
 */
class DemoCommandTest {
  @Test
  void runsTheReadmeCommandInTheCheckout(@TempDir Path checkout) throws Exception {
    Files.createDirectories(checkout.resolve("examples/orders-payments"));
    Files.writeString(checkout.resolve("examples/orders-payments/pom.xml"), "<project/>");
    Path mvnw = checkout.resolve("mvnw");
    // Stands in for the Maven wrapper: records how it was called, exits as the demo would.
    Files.writeString(mvnw, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args.txt\"\nexit 1\n");
    Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));

    Cli.Result r = new Cli(Map.of()).run("demo", "--repo", checkout.toString(), "--orders", "20", "--chaos");
    assertThat(r.exitCode()).as("the demo's exit code is the command's").isEqualTo(1);
    assertThat(Files.readAllLines(checkout.resolve("args.txt")))
        .containsExactly("-B", "-q", "-Pdemo", "-DskipTests", "package", "-Ddemo.args=--orders 20 --chaos");
  }

  @Test
  void explainsHowWithoutACheckout(@TempDir Path empty) {
    Cli.Result r = new Cli(Map.of()).run("demo", "--repo", empty.toString());
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("./mvnw -B -q -Pdemo -DskipTests package");
  }
}
