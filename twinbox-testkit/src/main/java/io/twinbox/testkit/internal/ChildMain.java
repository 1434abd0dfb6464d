package io.twinbox.testkit.internal;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * Entry point of the testkit's child JVMs: runs the {@code main} of the class named by the first
 * argument with the remaining arguments, and halts the JVM once the parent JVM is gone.
 *
 * <p>Why: the parent keeps the child's stdin pipe open and never writes to it. When the parent JVM
 * dies in any way — even {@code kill -9}, which runs no shutdown hook — the kernel closes the pipe
 * and the read below returns -1. The pipe also closes when the parent's {@code Process.destroy()}
 * runs while the parent lives on, so end of file alone proves nothing: from then on the child
 * watches the parent process and halts once it is gone. So no broker outlives the test JVM. When
 * the system property {@value #DELETE_ON_ORPHAN} names a directory, the child deletes it before
 * halting, since the parent that would have deleted it is gone.
 */
public final class ChildMain {
  /** System property: a directory to delete when the parent is gone. */
  public static final String DELETE_ON_ORPHAN = "twinbox.deleteOnOrphan";

  private ChildMain() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: ChildMain <main class> [args...]");
    }
    Thread watchdog = new Thread(ChildMain::haltWhenParentGone, "twinbox-parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void haltWhenParentGone() {
    Optional<ProcessHandle> parent = ProcessHandle.current().parent();
    try {
      while (System.in.read() != -1) {
        // The parent never writes; anything read is ignored.
      }
    } catch (IOException e) {
      // A broken pipe means the same as end of file.
    }
    // The handle carries the parent's start time, so a recycled pid does not count as alive.
    while (parent.isPresent() && parent.get().isAlive()) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
    System.err.println("twinbox: parent JVM is gone, halting");
    String dir = System.getProperty(DELETE_ON_ORPHAN);
    if (dir != null) {
      try {
        Directories.deleteRecursively(Path.of(dir));
      } catch (RuntimeException e) {
        // Halting matters more than a leftover temporary directory.
      }
    }
    Runtime.getRuntime().halt(137);
  }
}
