package io.twinbox.nats;

import io.cloudevents.CloudEvent;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import io.twinbox.testkit.contract.DeadLetterContract;
import io.twinbox.testkit.contract.DeadLetterFixture;
import io.twinbox.testkit.contract.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Dead letters on NATS JetStream (4222): the poison route is a subject no stream captures (REJECTED
 * "no stream"), its dead letters go to the default {@code dlq.<subject>}, captured by a stream of
 * their own; the outage cuts a proxy in front of a second publisher that carries only the dead letters.
 */
class NatsDeadLetterTest extends DeadLetterContract {
  @Override
  protected DeadLetterFixture createFixture() {
    try {
      return new Fixture(new NatsFixture());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Fixture implements DeadLetterFixture {
    private final NatsFixture nats;
    private final TcpProxy deadLetterProxy = TcpProxy.start(NatsFixture.HOST, NatsFixture.PORT);
    private final List<NatsPublisher> open = new ArrayList<>();
    private final List<String> streams = new ArrayList<>();
    private final Map<String, List<SdkEvent>> read = new HashMap<>();

    Fixture(NatsFixture nats) {
      this.nats = nats;
    }

    @Override
    public String name() {
      return "NATS JetStream";
    }

    @Override
    public DataSource dataSource() {
      return nats.dataSource();
    }

    @Override
    public OutboxStore store() {
      return nats.outboxStore();
    }

    private static String dlqStream(String name) {
      return NatsFixture.streamName("dlq_" + name);
    }

    @Override
    public String create(String name) {
      for (String[] s : new String[][] {{NatsFixture.streamName("dl_" + name), "tbdl." + name + ".>"},
          {dlqStream(name), "dlq.tbdl-nostream." + name + ".>"}}) {
        NatsStreams.ensure(nats.admin(), StreamConfiguration.builder().name(s[0]).subjects(s[1])
            .storageType(StorageType.File).duplicateWindow(NatsStreams.DEFAULT_DUPLICATE_WINDOW).build());
        streams.add(s[0]);
      }
      return name;
    }

    private static SubjectRouter router(String name) {
      return m -> (m.payload().contains("poison") ? "tbdl-nostream." : "tbdl.") + name + "." + m.type();
    }

    @Override
    public Transport publisher(String name) {
      return NatsPublisher.builder(NatsFixture.url(NatsFixture.PORT)).subjectRouter(router(name))
          .publishTimeout(Duration.ofSeconds(3)).build();
    }

    @Override
    public DeadLetterTransport deadLettersThroughProxy(String name) {
      NatsPublisher p = NatsPublisher.builder(NatsFixture.url(deadLetterProxy.port())).subjectRouter(router(name))
          .publishTimeout(Duration.ofSeconds(2)).build();
      open.add(p);
      return p.deadLetters().orElseThrow();
    }

    @Override
    public void cutDeadLetters() {
      deadLetterProxy.cut();
    }

    @Override
    public void restoreDeadLetters() {
      deadLetterProxy.restore();
    }

    @Override
    public List<SdkEvent> deadLetters(String name, int atLeast, Duration wait) {
      List<SdkEvent> got = read.computeIfAbsent(name, k -> new ArrayList<>());
      long end = System.nanoTime() + wait.toNanos();
      try {
        JetStreamManagement jsm = nats.admin().jetStreamManagement();
        while (got.size() < atLeast && System.nanoTime() - end < 0) {
          long last = jsm.getStreamInfo(dlqStream(name)).getStreamState().getLastSequence();
          if (last <= got.size()) {
            Thread.sleep(100);
            continue;
          }
          MessageInfo m = jsm.getMessage(dlqStream(name), got.size() + 1);
          CloudEvent e = new NatsCloudEventsSdkReaderTest.NatsReader(m.getHeaders(), m.getData()).toEvent();
          Map<String, String> ext = new TreeMap<>();
          e.getExtensionNames().forEach(n -> ext.put(n, String.valueOf(e.getExtension(n))));
          got.add(new SdkEvent(e.getId(), e.getType(), e.getSource().toString(), e.getSubject(), ext,
              new String(e.getData().toBytes(), StandardCharsets.UTF_8)));
        }
      } catch (java.io.IOException | JetStreamApiException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return List.copyOf(got);
    }

    @Override
    public long delivered(String name) {
      try {
        return nats.admin().jetStreamManagement().getStreamInfo(NatsFixture.streamName("dl_" + name))
            .getStreamState().getMsgCount();
      } catch (java.io.IOException | JetStreamApiException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      open.forEach(NatsPublisher::close);
      for (String s : streams) {
        try {
          NatsStreams.delete(nats.admin(), s);
        } catch (RuntimeException e) {
          // Best effort.
        }
      }
      deadLetterProxy.close();
      nats.close();
    }
  }
}
