package io.twinbox.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code twinbox demo}: runs the orders → payments example ({@code examples/orders-payments}). When
 * the example is on the class path its command runs in this JVM; otherwise (the executable jar
 * does not bundle the example, its embedded PostgreSQL and Kafka broker) the README's command
 * {@code ./mvnw -B -q -Pdemo -DskipTests package} is run in the Twinbox checkout found from the
 * current directory upwards or given with {@code --repo}.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the orders -> payments demo end to end (see the README, \"The demo\").",
        "Other options are the demo's own (--orders, --chaos, --jdbc-url, ...) and are passed on.",
        "Runs in this JVM when the example is on the class path, else runs"
            + " `./mvnw -B -q -Pdemo -DskipTests package -Ddemo.args=...` in the Twinbox checkout."},
    footer = "%nExit code: the demo's (0 every check holds, 1 a check failed, 2 it could not run).")
final class DemoCommand implements Callable<Integer> {
  static final String DEMO_CLASS = "io.twinbox.example.Demo";

  @Spec
  CommandSpec spec;

  @Option(names = "--repo", paramLabel = "DIR",
      description = "The Twinbox checkout to run the demo in (default: the current directory or a parent).")
  Path repo;

  @Unmatched
  List<String> demoArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Class<?> demo;
    try {
      demo = Class.forName(DEMO_CLASS);
    } catch (ClassNotFoundException e) {
      demo = null;
    }
    if (demo != null) {
      CommandLine cl = new CommandLine(demo);
      cl.setOut(spec.commandLine().getOut());
      cl.setErr(err);
      return cl.execute(demoArgs.toArray(String[]::new));
    }
    Path checkout = repo != null ? repo.toAbsolutePath() : findCheckout(Path.of("").toAbsolutePath());
    if (checkout == null || !isCheckout(checkout)) {
      err.println("twinbox demo: the example is not in this jar and no Twinbox checkout was found"
          + (repo == null ? " from " + Path.of("").toAbsolutePath() + " upwards" : " at " + repo) + ".");
      err.println("Run it from a checkout of the Twinbox repository:");
      err.println("  ./mvnw -B -q -Pdemo -DskipTests package" + (demoArgs.isEmpty() ? ""
          : " -Ddemo.args=\"" + String.join(" ", demoArgs) + "\""));
      err.println("or: java -jar twinbox.jar demo --repo <checkout> [demo options]");
      err.flush();
      return ExitCodes.USAGE;
    }
    List<String> command = new ArrayList<>(List.of(checkout.resolve("mvnw").toString(), "-B", "-q", "-Pdemo",
        "-DskipTests", "package"));
    if (!demoArgs.isEmpty()) {
      command.add("-Ddemo.args=" + String.join(" ", demoArgs));
    }
    err.println("twinbox demo: running " + String.join(" ", command) + " in " + checkout);
    err.flush();
    try {
      return new ProcessBuilder(command).directory(checkout.toFile()).inheritIO().start().waitFor();
    } catch (IOException e) {
      err.println("twinbox demo: cannot run " + command.get(0) + ": " + e.getMessage());
      return ExitCodes.USAGE;
    }
  }

  private static Path findCheckout(Path from) {
    for (Path p = from; p != null; p = p.getParent()) {
      if (isCheckout(p)) {
        return p;
      }
    }
    return null;
  }

  private static boolean isCheckout(Path p) {
    return Files.isRegularFile(p.resolve("mvnw")) && Files.isRegularFile(p.resolve("examples/orders-payments/pom.xml"));
  }
}
