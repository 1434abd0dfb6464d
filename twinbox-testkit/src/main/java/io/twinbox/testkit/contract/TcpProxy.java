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

/**
 * A TCP proxy on a free loopback port in front of a broker, for transport fixtures: {@link #cut()}
 * resets every connection through it and refuses new ones (a broker outage as the client sees it,
 * without touching a broker other tests share); {@link #restore()} lets connections through again.
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
  private volatile boolean open = true;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort, ServerSocket server) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = server;
  }

  /** Starts a proxy to {@code host:port} on a free port of 127.0.0.1. */
  public static TcpProxy start(String host, int port) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      TcpProxy proxy = new TcpProxy(host, port, server);
      Thread acceptor = new Thread(proxy::accept, "tcp-proxy-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a proxy port", e);
    }
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** Resets every connection through the proxy and refuses new ones until {@link #restore()}. */
  public void cut() {
    open = false;
    for (Socket s : sockets) {
      reset(s);
    }
    sockets.clear();
  }

  /** Lets new connections through again. */
  public void restore() {
    open = true;
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
        reset(client);
        continue;
      }
      try {
        Socket upstream = new Socket(targetHost, targetPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        reset(client);
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // One side closed or was reset: close the other below.
      } finally {
        reset(from);
        reset(to);
      }
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0); // RST, like a dropped network path, rather than an orderly FIN
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }
}
