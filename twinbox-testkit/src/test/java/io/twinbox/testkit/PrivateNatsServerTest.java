package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.PublishAck;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateNatsServerTest {

  @BeforeAll
  static void binary() {
    LocalServers.requireInstalled("nats-server", PrivateNatsServer.BINARY, "apt-get install nats-server");
  }

  @Test
  void fileStreamSurvivesKillNineAndRestartOnTheSamePort() throws Exception {
    Path home;
    try (PrivateNatsServer nats = PrivateNatsServer.start()) {
      home = nats.home();
      int port = nats.port();
      assertThat(nats.isRunning()).isTrue();
      assertThat(nats.url()).isEqualTo("nats://127.0.0.1:" + port);
      assertThat(port).isNotEqualTo(4222);
      long firstPid = nats.pid();
      try (Connection c = Nats.connect(nats.url())) {
        JetStreamManagement jsm = c.jetStreamManagement();
        jsm.addStream(StreamConfiguration.builder().name("T").subjects("t.>").storageType(StorageType.File).build());
        JetStream js = c.jetStream();
        for (int i = 0; i < 100; i++) {
          PublishAck ack = js.publish("t.x", ("m" + i).getBytes(StandardCharsets.UTF_8));
          assertThat(ack.getSeqno()).isEqualTo(i + 1);
        }
      }

      nats.kill();
      assertThat(nats.isRunning()).isFalse();
      assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();

      nats.restart();
      assertThat(nats.isRunning()).isTrue();
      assertThat(nats.port()).isEqualTo(port);
      assertThat(nats.pid()).isNotEqualTo(firstPid);
      try (Connection c = Nats.connect(nats.url())) {
        assertThat(c.jetStreamManagement().getStreamInfo("T").getStreamState().getMsgCount()).isEqualTo(100);
        assertThat(c.jetStream().publish("t.x", "after".getBytes(StandardCharsets.UTF_8)).getSeqno()).isEqualTo(101);
      }
    }
    assertThat(home).doesNotExist();
  }

  @Test
  void clientConfiguredToReconnectComesBackAfterRestart() throws Exception {
    try (PrivateNatsServer nats = PrivateNatsServer.start()) {
      Options options = new Options.Builder().server(nats.url()).maxReconnects(-1)
          .reconnectWait(Duration.ofMillis(100)).build();
      try (Connection c = Nats.connect(options)) {
        c.jetStreamManagement().addStream(StreamConfiguration.builder().name("R").subjects("r.>")
            .storageType(StorageType.File).build());
        nats.kill();
        nats.restart();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (c.getStatus() != Connection.Status.CONNECTED && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(c.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        assertThat(c.jetStream().publish("r.x", new byte[] {1}).getSeqno()).isEqualTo(1);
      }
    }
  }

  @Test
  void givenHomeKeepsTheLogAndLosesTheStore(@TempDir Path tmp) {
    Path home = tmp.resolve("nats");
    PrivateNatsServer nats = PrivateNatsServer.start(home);
    assertThat(nats.home()).isEqualTo(home.toAbsolutePath());
    nats.close();
    assertThat(nats.isRunning()).isFalse();
    assertThat(nats.storeDir()).doesNotExist();
    assertThat(nats.logFile()).exists();
    nats.close(); // idempotent
  }
}
