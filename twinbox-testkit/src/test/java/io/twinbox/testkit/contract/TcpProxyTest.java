package io.twinbox.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy in front of a real TCP echo server on loopback. */
class TcpProxyTest {
  private ServerSocket echo;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!echo.isClosed()) {
        try {
          Socket s = echo.accept();
          Thread c = new Thread(() -> {
            try (s) {
              s.getInputStream().transferTo(s.getOutputStream());
            } catch (IOException e) {
              // The proxy reset the connection.
            }
          });
          c.setDaemon(true);
          c.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    proxy = TcpProxy.start("127.0.0.1", echo.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void forwardsAndCounts() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "hello")).isEqualTo("hello");
      assertThat(proxy.connections()).isEqualTo(1);
      assertThat(proxy.upstreamPorts()).hasSize(1);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(
          () -> assertThat(proxy.stats()).isEqualTo("connections=1 toServer=5B toClient=5B"));
      assertThat(proxy.bytesToServer()).isEqualTo(5);
    }
  }

  @Test
  void resetDropsOpenConnectionsButLetsNewOnesThrough() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "a")).isEqualTo("a");
      proxy.reset();
      assertThatThrownBy(() -> roundTrip(s, "b")).isInstanceOf(IOException.class);
    }
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "c")).isEqualTo("c");
    }
  }

  @Test
  void cutRefusesUntilRestore() throws IOException {
    proxy.cut();
    try (Socket s = connect()) {
      assertThatThrownBy(() -> roundTrip(s, "x")).isInstanceOf(IOException.class);
    }
    proxy.restore();
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "y")).isEqualTo("y");
    }
  }

  @Test
  void blackholeAndDroppedRepliesSwallowBytesUntilEndedWithAReset() throws IOException {
    try (Socket s = connect()) {
      proxy.blackhole(true);
      assertThatThrownBy(() -> roundTrip(s, "lost")).isInstanceOf(SocketTimeoutException.class);
      assertThat(proxy.bytesToServer()).isZero();
      proxy.blackhole(false);
      assertThatThrownBy(() -> roundTrip(s, "z")).isInstanceOf(IOException.class);
    }
    try (Socket s = connect()) {
      proxy.dropReplies(true);
      assertThatThrownBy(() -> roundTrip(s, "req")).isInstanceOf(SocketTimeoutException.class);
      assertThat(proxy.bytesToServer()).isEqualTo(3); // the request reached the server
      proxy.dropReplies(false);
      assertThatThrownBy(() -> roundTrip(s, "again")).isInstanceOf(IOException.class);
    }
  }

  @Test
  void latencyDelaysEveryChunk() throws IOException {
    proxy.latency(200);
    try (Socket s = connect()) {
      long t0 = System.nanoTime();
      assertThat(roundTrip(s, "slow")).isEqualTo("slow");
      assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(400); // there and back
    }
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", proxy.port());
    s.setSoTimeout(1_000);
    return s;
  }

  private static String roundTrip(Socket s, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    s.getOutputStream().write(bytes);
    s.getOutputStream().flush();
    InputStream in = s.getInputStream();
    byte[] back = in.readNBytes(bytes.length);
    if (back.length < bytes.length) {
      throw new IOException("closed after " + back.length + " of " + bytes.length + " bytes");
    }
    return new String(back, StandardCharsets.UTF_8);
  }
}
