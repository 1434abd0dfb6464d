package io.twinbox.testkit.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks TCP ports that are free on 127.0.0.1, below the kernel's ephemeral range.
 *
 * <p>Why below it: a broker that is killed and restarted must get its port back. A port from the
 * ephemeral range may meanwhile be handed to any outgoing connection on the machine (a JDBC pool, a
 * Kafka client retrying against that very port), and the restart would fail to bind for as long
 * as that connection lives. Ports below the range are never assigned that way.
 */
public final class FreePorts {
  private static final int LOWEST = 21000;
  private static final int ATTEMPTS = 200;
  /** Ports of servers the project's tests use that fall into the range we pick from. */
  private static final Set<Integer> RESERVED = Set.of(25672);

  private FreePorts() {}

  /** Returns {@code count} distinct ports that were free a moment ago. */
  public static int[] pick(int count) {
    int highest = ephemeralLow() - 1;
    Set<Integer> picked = new HashSet<>();
    int[] ports = new int[count];
    for (int attempt = 0; attempt < ATTEMPTS && picked.size() < count; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
      if (!RESERVED.contains(port) && !picked.contains(port) && isFree(port)) {
        ports[picked.size()] = port;
        picked.add(port);
      }
    }
    if (picked.size() < count) {
      throw new IllegalStateException("no free port between " + LOWEST + " and " + highest);
    }
    return ports;
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The low end of Linux's ephemeral port range; the IANA default elsewhere. */
  private static int ephemeralLow() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    try {
      int low = Integer.parseInt(
          Files.readString(range, StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
      return Math.max(low, LOWEST + 1000);
    } catch (IOException | RuntimeException e) {
      return 49152;
    }
  }
}
