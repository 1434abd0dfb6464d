package io.twinbox.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code server.properties} of a single-node KRaft Kafka (combined broker and controller) with
 * static voters, tuned for tests: replication factors of 1, no rebalance delay, and a short broker
 * session so that a node killed with {@code -9} can register again soon after its restart.
 */
public final class BrokerConfig {
  private BrokerConfig() {}

  /**
   * Writes the file for the given listener ports and data directory.
   *
   * @param linkPort the {@code LINK} listener, for clients that reach the broker through a fault
   *     proxy: it advertises {@code linkProxyPort}, where that proxy listens, so that every
   *     connection such a client opens after bootstrapping goes through the proxy too
   * @param autoCreateTopics the broker's {@code auto.create.topics.enable}
   */
  public static void write(Path file, Path dataDir, int brokerPort, int controllerPort, int linkPort,
      int linkProxyPort, boolean autoCreateTopics) {
    String text = """
        process.roles=broker,controller
        node.id=1
        controller.quorum.voters=1@127.0.0.1:%2$d
        listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d,LINK://127.0.0.1:%5$d
        advertised.listeners=PLAINTEXT://127.0.0.1:%1$d,LINK://127.0.0.1:%6$d
        controller.listener.names=CONTROLLER
        inter.broker.listener.name=PLAINTEXT
        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,LINK:PLAINTEXT
        log.dirs=%3$s
        num.partitions=4
        auto.create.topics.enable=%4$s
        offsets.topic.replication.factor=1
        transaction.state.log.replication.factor=1
        transaction.state.log.min.isr=1
        share.coordinator.state.topic.replication.factor=1
        share.coordinator.state.topic.min.isr=1
        group.initial.rebalance.delay.ms=0
        # Fewer internal partitions than the default 50: a single test broker creates them faster.
        offsets.topic.num.partitions=4
        transaction.state.log.num.partitions=4
        # After a kill -9 the restarted node must wait for its old registration to expire before
        # it may register again: a 3 s session instead of 9 s makes restarts 6 s faster.
        broker.heartbeat.interval.ms=500
        broker.session.timeout.ms=3000
        """.formatted(brokerPort, controllerPort, dataDir.toAbsolutePath().toString(), autoCreateTopics,
            linkPort, linkProxyPort);
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
