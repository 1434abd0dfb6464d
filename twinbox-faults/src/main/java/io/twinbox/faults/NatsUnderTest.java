package io.twinbox.faults;

import io.nats.client.Connection;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.twinbox.InboxMessage;
import io.twinbox.nats.NatsStreams;
import io.twinbox.nats.internal.NatsCloudEvents;
import io.twinbox.spi.WireEvents;
import io.twinbox.testkit.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * The machine's shared NATS server with JetStream on 127.0.0.1:4222. Like RabbitMQ it is never
 * killed: the relays reach it through a fault proxy (reset, blackhole, latency, lost publish acks),
 * the consumers directly. Each run gets its own file-backed stream {@code TB_<name>} on subjects
 * {@code tb.<name>.>} with JetStream's default 2-minute duplicate window ({@code Nats-Msg-Id}), a
 * durable pull consumer shared by the two consumers, and is deleted at the end. The tap reads the
 * stream itself (an ordered consumer from sequence 1), so it sees what JetStream stored: a
 * republish it dropped as a duplicate is not there.
 */
public final class NatsUnderTest implements BrokerUnderTest {
  public static final String HOST = "127.0.0.1";
  public static final int PORT = 4222;
  private final Connection admin;

  public NatsUnderTest() {
    try {
      admin = Nats.connect("nats://" + HOST + ":" + PORT);
    } catch (Exception e) {
      throw new IllegalStateException("cannot connect to NATS on " + HOST + ":" + PORT, e);
    }
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public Set<FaultKind> supported() {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    all.remove(FaultKind.BROKER_KILL);
    return all;
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
        return "nats|" + HOST + "|" + PORT + "|" + stream;
      }

      @Override
      public String linkHost() {
        return HOST;
      }

      @Override
      public int linkPort() {
        return PORT;
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
          // Best effort on a shared server; names are unique per run.
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

  @Override
  public void close() {
    try {
      admin.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
