package io.twinbox.faults;

import io.nats.client.Connection;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.Options;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.twinbox.InboxMessage;
import io.twinbox.nats.NatsStreams;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.spi.WireEvents;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.PrivateNatsServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * A NATS server with JetStream that the run owns (testkit {@link PrivateNatsServer}: the shared
 * server's binary and flags, on a port and store of its own), so that the nemesis may {@code kill
 * -9} it and start it again (C1) without touching the machine's shared server on 4222. Every NATS
 * row uses it, not only those with {@link FaultKind#BROKER_KILL}, as every Kafka row uses the
 * testkit's broker: one server for the whole matrix, and no row depends on what else runs on the
 * shared one. The relays reach it through a fault proxy (reset, blackhole, latency, lost publish
 * acks), the consumers and the tap directly; all of them reconnect forever after a kill. Each run
 * gets its own file-backed stream {@code TB_<name>} on subjects {@code tb.<name>.>} with
 * JetStream's default 2-minute duplicate window ({@code Nats-Msg-Id}), a durable pull consumer
 * shared by the two consumers, and is deleted at the end; file-backed stream and consumer survive a
 * kill. The tap reads the stream itself (an ordered consumer from sequence 1), so it sees what
 * JetStream stored: a republish it dropped as a duplicate is not there.
 */
public final class NatsUnderTest implements BrokerUnderTest {
  public static final String HOST = "127.0.0.1";
  private final PrivateNatsServer server;
  private final int port;
  private final Connection admin;

  /** Takes {@code server} over: {@link #close()} closes it. */
  public NatsUnderTest(PrivateNatsServer server) {
    this.server = server;
    this.port = server.port();
    Options options = new Options.Builder().server(server.url()).connectionName("faults-admin")
        .maxReconnects(-1).reconnectWait(Duration.ofMillis(250)).connectionTimeout(Duration.ofSeconds(5))
        .build();
    try {
      admin = Nats.connect(options);
    } catch (Exception e) {
      server.close();
      throw new IllegalStateException("cannot connect to " + server, e);
    }
  }

  @Override
  public String name() {
    return "nats";
  }

  /** Everything, the broker kill included: the server is the run's own. */
  @Override
  public Set<FaultKind> supported() {
    // C5 (a permanent rejection) is played on Kafka only so far.
    return EnumSet.complementOf(EnumSet.of(FaultKind.BROKER_REJECTS));
  }

  @Override
  public void kill() {
    server.kill();
  }

  /** Starts the server again on the same port and store; returns when it answers. */
  @Override
  public void restart() {
    server.restart();
  }

  @Override
  public boolean isRunning() {
    return server.isRunning();
  }

  @Override
  public Destination create(String name) {
    String stream = "TB_" + name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    String prefix = "tb." + name;
    NatsStreams.ensure(admin, StreamConfiguration.builder().name(stream).subjects(prefix + ".>")
        .storageType(StorageType.File).duplicateWindow(NatsStreams.DEFAULT_DUPLICATE_WINDOW).build());
    return new Destination() {
      @Override
      public String relaySpec(int linkPort) {
        return "nats|" + HOST + "|" + linkPort + "|" + prefix;
      }

      @Override
      public String consumerSpec() {
        return "nats|" + HOST + "|" + port + "|" + stream;
      }

      @Override
      public String linkHost() {
        return HOST;
      }

      @Override
      public int linkPort() {
        return port;
      }

      @Override
      public Tap.Read readAll(Duration timeout) {
        return read(stream, timeout);
      }

      @Override
      public void injectPoison(int salt) {
        try {
          admin.jetStream().publish(prefix + ".Garbage", ("{not json " + salt).getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
          throw new IllegalStateException("cannot inject a poison message", e);
        }
      }

      @Override
      public void close() {
        try {
          NatsStreams.delete(admin, stream);
        } catch (RuntimeException e) {
          // Best effort; names are unique per run and the store dies with the server.
        }
      }
    };
  }

  private Tap.Read read(String stream, Duration timeout) {
    List<Delivery> out = new ArrayList<>();
    int foreign = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      long total = admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
      OrderedConsumerContext ordered = admin.getStreamContext(stream)
          .createOrderedConsumer(new OrderedConsumerConfiguration());
      try (IterableConsumer it = ordered.iterate()) {
        for (long n = 0; n < total; ) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("could not read stream " + stream + " (" + n + " of " + total
                + ") in " + timeout);
          }
          Message m = it.nextMessage(Duration.ofSeconds(1));
          if (m == null) {
            continue;
          }
          n++;
          Delivery d = toDelivery(stream, m);
          if (d == null) {
            foreign++;
          } else {
            out.add(d);
          }
        }
      }
    } catch (JetStreamApiException | java.io.IOException e) {
      throw new IllegalStateException("cannot read stream " + stream, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading " + stream, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read stream " + stream, e);
    }
    return new Tap.Read(out, foreign);
  }

  /** A Twinbox event from a stored JetStream message, or null when it is none. */
  static Delivery toDelivery(String stream, Message m) {
    WireEvents.Read d = NatsCloudEvents.decode(m);
    InboxMessage im = d.message();
    if (d.failure() != null || im == null) {
      return null;
    }
    try {
      return new Delivery(stream, 0, m.metaData().streamSequence(), im.aggregateId(), UUID.fromString(im.id()),
          im.aggregateType(), im.aggregateId(), im.sequence());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Closes the admin connection and the server (its store is deleted). */
  @Override
  public void close() {
    try {
      admin.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.close();
    }
  }
}
