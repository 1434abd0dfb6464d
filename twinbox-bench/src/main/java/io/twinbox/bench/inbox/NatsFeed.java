package io.twinbox.bench.inbox;

import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStream;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.twinbox.InboxConsumer;
import io.twinbox.nats.NatsInboxConsumer;
import io.twinbox.nats.NatsStreams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * NATS JetStream for the inbox scenario: per measurement a file-backed stream (server defaults)
 * filled by async publishes awaited in windows of 1,000, the CloudEvents NATS binding's {@code ce-}
 * headers written by hand (the bench's ids and values need no percent-encoding). The baseline is a
 * plain durable pull consumer (explicit acks, deliver all) iterated as the library does, one
 * {@code ack()} per message after the database commit.
 */
final class NatsFeed implements BrokerFeed {
  private final String url;
  private String stream;

  NatsFeed(String url) {
    this.url = url;
  }

  static String streamOf(String tag) {
    return tag.replaceAll("[^A-Za-z0-9_-]", "_").toUpperCase(java.util.Locale.ROOT);
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public String libraryDescription() {
    return "NatsInboxConsumer.builder(url, stream, durable)";
  }

  @Override
  public String rawDescription() {
    return "plain JetStream durable pull consumer (iterate, explicit ack per message after the DB commit)";
  }

  @Override
  public void fill(String tag, List<InboxBench.Msg> msgs) throws Exception {
    stream = streamOf(tag);
    String subject = tag + ".payments";
    long t0 = System.nanoTime();
    try (Connection c = Nats.connect(url)) {
      NatsStreams.ensure(c, stream, tag + ".>");
      JetStream js = c.jetStream();
      List<CompletableFuture<PublishAck>> window = new ArrayList<>();
      for (InboxBench.Msg m : msgs) {
        Headers h = new Headers();
        h.add("ce-specversion", "1.0");
        h.add("ce-id", m.id());
        h.add("ce-source", "/bench/payments");
        h.add("ce-type", "PaymentReceived");
        h.add("ce-subject", "acct-" + m.account());
        h.add("ce-datacontenttype", "application/json");
        window.add(js.publishAsync(NatsMessage.builder().subject(subject).headers(h)
            .data(m.payload().getBytes(StandardCharsets.UTF_8)).build()));
        if (window.size() == 1000) {
          await(window);
        }
      }
      await(window);
    }
    System.out.printf("  published %,d messages to NATS stream %s in %.1f s%n", msgs.size(), stream,
        (System.nanoTime() - t0) / 1e9);
  }

  private static void await(List<CompletableFuture<PublishAck>> window) throws Exception {
    for (CompletableFuture<PublishAck> f : window) {
      f.get(60, TimeUnit.SECONDS);
    }
    window.clear();
  }

  @Override
  public InboxConsumer.Builder<?> library(String tag) {
    return NatsInboxConsumer.builder(url, streamOf(tag), "twinbox-" + streamOf(tag));
  }

  @Override
  public Raw raw(String tag, int batch) throws Exception {
    Connection c = Nats.connect(url);
    IterableConsumer it = c.getStreamContext(streamOf(tag)).createOrUpdateConsumer(ConsumerConfiguration.builder()
            .durable("raw-" + streamOf(tag)).ackPolicy(AckPolicy.Explicit).deliverPolicy(DeliverPolicy.All).build())
        .iterate(ConsumeOptions.builder().batchSize(batch).build());
    return new Raw() {
      private final List<Message> taken = new ArrayList<>();

      @Override
      public List<InboxBench.Msg> next() throws Exception {
        taken.clear();
        List<InboxBench.Msg> out = new ArrayList<>(batch);
        Message m = it.nextMessage(Duration.ofMillis(200));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        while (m != null) {
          taken.add(m);
          Headers h = m.getHeaders();
          out.add(new InboxBench.Msg(h.getFirst("ce-id"), Integer.parseInt(h.getFirst("ce-subject").substring(5)),
              new String(m.getData(), StandardCharsets.UTF_8)));
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          m = out.size() < batch && left > 0 ? it.nextMessage(left) : null;
        }
        return out;
      }

      @Override
      public void settle() {
        for (Message m : taken) {
          m.ack();
        }
      }

      @Override
      public void close() throws Exception {
        it.stop();
        c.close();
      }
    };
  }

  @Override
  public void cleanUp() throws Exception {
    if (stream != null) {
      try (Connection c = Nats.connect(url)) {
        NatsStreams.delete(c, stream);
      }
      stream = null;
    }
  }
}
