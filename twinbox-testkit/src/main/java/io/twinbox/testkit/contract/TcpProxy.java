package io.twinbox.testkit.contract;

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
 * A TCP proxy on a free loopback port in front of a server, for transport fixtures and the fault
 * runner: network faults as the client sees them, without touching a server other tests share.
 *
 * <ul>
 *   <li>{@link #cut()}: every connection gets an RST and new ones are refused (an outage) until
 *       {@link #restore()};
 *   <li>{@link #reset()}: every open connection gets an RST (new ones are let through);
 *   <li>{@link #blackhole(boolean)}: bytes in both directions are silently discarded, no RST;
 *       ending it resets the connections, whose streams are now corrupt;
 *   <li>{@link #latency(long)}: every chunk is delayed;
 *   <li>{@link #dropReplies(boolean)}: requests reach the server but its replies are discarded
 *       (the request applied, the answer lost: an ambiguous outcome); ending it resets.
 * </ul>
 *
 * <pre>{@code
 * TcpProxy proxy = TcpProxy.start("127.0.0.1", 5672);
 * ConnectionFactory f = ...; f.setPort(proxy.port());
 * proxy.cut();      // the client's connection drops; reconnects are refused
 * proxy.restore();
 * }</pre>
 *
 * <p>Thread-safe. Two daemon threads per connection copy bytes; {@link #close()} stops everything.
 */
public final class TcpProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Set<Integer> upstreamPorts = ConcurrentHashMap.newKeySet();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong bytesToServer = new AtomicLong();
  private final AtomicLong bytesToClient = new AtomicLong();
  private volatile boolean open = true;
  private volatile boolean blackhole;
  private volatile boolean dropReplies;
  private volatile long latencyMillis;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort, ServerSocket server) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = server;
  }

  /** Starts a proxy to {@code host:port} on a free port of 127.0.0.1. */
  public static TcpProxy start(String host, int port) {
    return startOn(0, host, port);
  }

  /**
   * Starts a proxy to {@code host:port} that listens on {@code listenPort} of 127.0.0.1 (0 for a
   * free one): for a server that advertises the proxy's address to its clients, such as a Kafka
   * listener whose advertised port is fixed in the broker's configuration. The port may be taken
   * again right after a previous proxy on it was closed.
   *
   * @throws IllegalStateException when the port cannot be bound
   */
  public static TcpProxy startOn(int listenPort, String host, int port) {
    try {
      ServerSocket server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
      TcpProxy proxy = new TcpProxy(host, port, server);
      Thread acceptor = new Thread(proxy::accept, "tcp-proxy-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a proxy on port " + listenPort, e);
    }
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /**
   * What passed through so far: connections accepted and bytes forwarded each way, e.g. {@code
   * connections=4 toServer=1200B toClient=80B}; proof that clients really used this proxy.
   */
  public String stats() {
    return "connections=" + connections.get() + " toServer=" + bytesToServer.get() + "B toClient="
        + bytesToClient.get() + "B";
  }

  /** Connections accepted and forwarded so far. */
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

  /** Resets every connection through the proxy and refuses new ones until {@link #restore()}. */
  public void cut() {
    open = false;
    reset();
  }

  /** Lets new connections through again after {@link #cut()}. */
  public void restore() {
    open = true;
  }

  /** Resets every open connection; new ones are let through (unless {@link #cut()}). */
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
    cut();
    try {
      server.close();
    } catch (IOException e) {
      // Nothing left to release.
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
      if (!open) {
        rst(client);
        continue;
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
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private static void rst(Socket s) {
    try {
      s.setSoLinger(true, 0); // RST, like a dropped network path, rather than an orderly FIN
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }
}
