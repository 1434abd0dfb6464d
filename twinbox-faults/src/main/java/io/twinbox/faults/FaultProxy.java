package io.twinbox.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP fault proxy on a free loopback port: the testkit's {@code TcpProxy} only cuts and
 * restores; a fault run also needs the network faults of FAULTS.md B8, B10, C3, C4 and C11:
 *
 * <ul>
 *   <li>{@link #reset()}: every open connection gets an RST (new ones are let through);
 *   <li>{@link #blackhole(boolean)}: bytes in both directions are silently discarded, no RST;
 *       ending it resets the connections, whose streams are now corrupt;
 *   <li>{@link #latency(long)}: every chunk is delayed;
 *   <li>{@link #dropReplies(boolean)}: requests reach the server but its replies are discarded
 *       (the request applied, the answer lost: an ambiguous outcome); ending it resets.
 * </ul>
 *
 * <p>Thread-safe. Two daemon threads per connection copy bytes.
 */
public final class FaultProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean blackhole;
  private volatile boolean dropReplies;
  private volatile long latencyMillis;
  private volatile boolean closed;
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong bytesToServer = new AtomicLong();
  private final AtomicLong bytesToClient = new AtomicLong();
  private final Set<Integer> upstreamPorts = ConcurrentHashMap.newKeySet();

  private FaultProxy(String targetHost, int targetPort, ServerSocket server) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = server;
  }

  /** Starts a proxy to {@code host:port}. */
  public static FaultProxy start(String host, int port) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      FaultProxy proxy = new FaultProxy(host, port, server);
      Thread acceptor = new Thread(proxy::accept, "fault-proxy-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a proxy port", e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /**
   * What passed through so far: connections accepted and bytes forwarded each way, e.g. {@code
   * connections=4 toServer=1.2MB toClient=80KB}; proof that clients really used this proxy.
   */
  public String stats() {
    return "connections=" + connections.get() + " toServer=" + bytesToServer.get() + "B toClient="
        + bytesToClient.get() + "B";
  }

  /** Connections accepted so far. */
  public long connections() {
    return connections.get();
  }

  /** Bytes forwarded from clients to the server so far. */
  public long bytesToServer() {
    return bytesToServer.get();
  }

  /**
   * The local ports of the proxy's open connections to the server: the server sees the proxied
   * clients as {@code 127.0.0.1:<port>} (MariaDB's processlist, for instance).
   */
  public Set<Integer> upstreamPorts() {
    return Set.copyOf(upstreamPorts);
  }

  /** Resets every open connection. */
  public void reset() {
    for (Socket s : sockets) {
      rst(s);
    }
    sockets.clear();
  }

  /** Starts or ends discarding all bytes; ending it resets the connections. */
  public void blackhole(boolean on) {
    blackhole = on;
    if (!on) {
      reset();
    }
  }

  /** Starts or ends discarding the server's replies; ending it resets the connections. */
  public void dropReplies(boolean on) {
    dropReplies = on;
    if (!on) {
      reset();
    }
  }

  /** Delays every chunk by {@code millis} (0 for none). */
  public void latency(long millis) {
    latencyMillis = millis;
  }

  @Override
  public void close() {
    closed = true;
    reset();
    try {
      server.close();
    } catch (IOException e) {
      // Closing anyway.
    }
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket upstream = new Socket(targetHost, targetPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        connections.incrementAndGet();
        upstreamPorts.add(upstream.getLocalPort());
        pipe(client, upstream, false);
        pipe(upstream, client, true);
      } catch (IOException e) {
        rst(client);
      }
    }
  }

  private void pipe(Socket from, Socket to, boolean reply) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          long delay = latencyMillis;
          if (delay > 0) {
            Thread.sleep(delay);
          }
          if (blackhole || (reply && dropReplies)) {
            continue;
          }
          out.write(buf, 0, n);
          out.flush();
          (reply ? bytesToClient : bytesToServer).addAndGet(n);
        }
      } catch (IOException e) {
        // One side closed or was reset: close the other below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        rst(from);
        rst(to);
        sockets.remove(from);
        sockets.remove(to);
        upstreamPorts.remove((reply ? from : to).getLocalPort());
      }
    }, "fault-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private static void rst(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }
}
