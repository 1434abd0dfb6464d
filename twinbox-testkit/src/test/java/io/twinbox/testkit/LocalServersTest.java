package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.twinbox.testkit.internal.FreePorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class LocalServersTest {

  @Test
  void probesAListeningPort() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThat(LocalServers.isUp("127.0.0.1", server.getLocalPort())).isTrue();
      LocalServers.require("Test server", "127.0.0.1", server.getLocalPort()); // no throw
    }
  }

  @Test
  void aMissingServerSkipsLoudlyOrFailsOnCi() {
    int closed = FreePorts.pick(1)[0];
    assertThat(LocalServers.isUp("127.0.0.1", closed)).isFalse();

    Throwable thrown = catchThrowable(() -> LocalServers.require("RabbitMQ", "127.0.0.1", closed));

    // The same test runs on a laptop (skip) and on CI (CI=true: fail); both must name the server.
    if (LocalServers.isCi()) {
      assertThat(thrown).isInstanceOf(AssertionError.class);
    } else {
      assertThat(thrown).isInstanceOf(TestAbortedException.class);
    }
    assertThat(thrown).hasMessageContaining("RabbitMQ not answering on 127.0.0.1:" + closed)
        .hasMessageContaining("service rabbitmq-server start");
  }
}
