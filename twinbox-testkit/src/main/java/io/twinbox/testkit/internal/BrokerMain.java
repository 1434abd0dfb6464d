package io.twinbox.testkit.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Main class of the broker's child JVM: formats the data directory when it has never been
 * formatted ({@code kafka.tools.StorageTool format}), then runs {@code kafka.Kafka}.
 *
 * <p>Why one JVM for both: formatting in a JVM of its own cost a second JVM start and a second
 * load of the Scala runtime, about two seconds of every broker start.
 *
 * <p>Arguments: {@code <server.properties> <data dir> <cluster id>}.
 */
public final class BrokerMain {
  private BrokerMain() {}

  public static void main(String[] args) {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "usage: BrokerMain <server.properties> <data dir> <cluster id>");
    }
    String config = args[0];
    if (!Files.exists(Path.of(args[1], "meta.properties"))) {
      int code = kafka.tools.StorageTool.execute(
          new String[] {"format", "-t", args[2], "-c", config}, System.out);
      if (code != 0) {
        System.err.println("twinbox: formatting " + args[1] + " failed with code " + code);
        System.exit(code);
      }
    }
    kafka.Kafka.main(new String[] {config});
  }
}
