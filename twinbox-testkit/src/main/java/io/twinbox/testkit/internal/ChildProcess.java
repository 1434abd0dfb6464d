package io.twinbox.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Launches a JVM with the current JVM's {@code java} binary and classpath, running a main class
 * through {@link ChildMain}. Output and errors are appended to a log file; stdin stays a pipe that
 * the caller must keep referenced (see {@link ChildMain}).
 */
public final class ChildProcess {
  private ChildProcess() {}

  /**
   * Starts the child.
   *
   * @param workDir the child's working folder; each launch writes its own classpath argument file
   *     there, so concurrent launches never read one another's half-written file
   * @param log the file that receives the child's stdout and stderr
   * @param jvmOptions extra JVM options, e.g. {@code -Xmx512m}
   * @param mainClass the class whose {@code main} runs
   * @param args its arguments
   */
  public static Process start(Path workDir, Path log, List<String> jvmOptions, String mainClass,
      List<String> args) {
    return start(workDir, log, jvmOptions, mainClass, args, Map.of());
  }

  /**
   * As {@link #start(Path, Path, List, String, List)}, with {@code environment} added to the
   * child's environment (e.g. {@code LD_PRELOAD} of libfaketime for a skewed clock).
   */
  public static Process start(Path workDir, Path log, List<String> jvmOptions, String mainClass,
      List<String> args, Map<String, String> environment) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    // An argument file keeps a long test classpath off the command line.
    command.add("@" + classpathArgFile(workDir));
    command.add(ChildMain.class.getName());
    command.add(mainClass);
    command.addAll(args);
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(environment);
      return builder
          .directory(workDir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass + " in a child JVM", e);
    }
  }

  private static Path classpathArgFile(Path workDir) {
    Path file;
    try {
      // One file per launch: a shared name rewritten by a second, concurrent launch could be read
      // half-written by the first child's JVM.
      file = Files.createTempFile(workDir, "classpath-", ".args");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a classpath argument file in " + workDir, e);
    }
    // Absolute entries: the child runs in workDir, where relative entries would point nowhere.
    String current = System.getProperty("java.class.path");
    String classpath = Arrays.stream(current.split(File.pathSeparator))
        .filter(entry -> !entry.isEmpty())
        .map(entry -> Path.of(entry).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
    String quoted = "\"" + classpath.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    try {
      Files.writeString(file, "-cp\n" + quoted + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  /** The last {@code lines} lines of a log file, or a note when it cannot be read. */
  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(log " + log + " unreadable: " + e + ")";
    }
  }
}
