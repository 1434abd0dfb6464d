package io.twinbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.ReceivedMessage;
import io.twinbox.testkit.KafkaBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The source's read-ahead on a real broker: the next poll runs while the consumer works on the
 * last partition of the previous one, and that must change nothing a consumer can see — a rewind
 * ({@code giveBack}) still resumes exactly where it says, never behind records read ahead, and
 * settled offsets still reach the group.
 */
class KafkaSourceReadAheadTest {
  static KafkaBroker broker;
  static KafkaPublisher publisher;

  @BeforeAll
  static void setUp() {
    broker = KafkaBroker.shared();
    publisher = KafkaPublisher.builder(broker.bootstrapServers()).topicRouter(OutboxMessage::aggregateType).build();
  }

  @AfterAll
  static void tearDown() {
    publisher.close();
  }

  /** Publishes {@code n} events to a one-partition topic; their ids in offset order. */
  static List<String> publish(String topic, int n) throws Exception {
    broker.createTopic(topic, 1);
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<PublishOutcome>> acks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      UUID id = UUID.randomUUID();
      ids.add(id.toString());
      acks.add(publisher.send(new OutboxMessage(i + 1, id, topic, "w-1", i + 1, 0, "Debited", 1, "{\"n\":" + i + "}",
          Map.of(), null, null, null, Instant.now(), Instant.now(), 0, "/wallets")));
    }
    for (CompletableFuture<PublishOutcome> a : acks) {
      assertThat(a.get().kind()).isEqualTo(PublishOutcome.Kind.ACKED);
    }
    return ids;
  }

  static KafkaSource source(String group, int maxPollRecords) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaSource(p, List.of(topic(group)), Duration.ofMillis(200));
  }

  static String topic(String group) {
    return "t-" + group;
  }

  static List<ReceivedMessage> fetchNonEmpty(KafkaSource s) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      List<ReceivedMessage> batch = s.fetch();
      if (!batch.isEmpty()) {
        return batch;
      }
    }
    throw new AssertionError("nothing fetched in 30 s");
  }

  static List<String> ids(List<ReceivedMessage> batch) {
    return batch.stream().map(r -> r.message().id()).toList();
  }

  @Test
  void aRewindResumesWhereItSaysAndNeverBehindTheRecordsReadAhead() throws Exception {
    String group = "read-ahead-" + UUID.randomUUID();
    List<String> published = publish(topic(group), 300);
    List<String> seen = new ArrayList<>();
    try (KafkaSource s = source(group, 100)) {
      List<ReceivedMessage> first = fetchNonEmpty(s);
      assertThat(ids(first)).isEqualTo(published.subList(0, first.size()));
      // The only partition was handed out, so the next poll is already running; let it read the
      // next records before the consumer stops part-way.
      Thread.sleep(1_000);
      s.settle(0, 10, i -> false);
      s.giveBack(10);
      seen.addAll(ids(first).subList(0, 10));
      while (seen.size() < published.size()) {
        seen.addAll(ids(fetchNonEmpty(s)));
      }
    }
    assertThat(seen).as("every record once, in offset order, the rewound ones right after the rewind")
        .isEqualTo(published);
  }

  @Test
  void whatIsSettledIsCommittedForTheGroupAndTheRestComesAgain() throws Exception {
    String group = "read-ahead-commit-" + UUID.randomUUID();
    List<String> published = publish(topic(group), 250);
    int settled = 0;
    try (KafkaSource s = source(group, 100)) {
      while (settled < 150) {
        List<ReceivedMessage> batch = fetchNonEmpty(s);
        assertThat(ids(batch)).isEqualTo(published.subList(settled, settled + batch.size()));
        s.settle(0, batch.size(), i -> false);
        settled += batch.size();
      }
    }
    try (KafkaSource again = source(group, 100)) {
      List<ReceivedMessage> batch = fetchNonEmpty(again);
      assertThat(batch.get(0).message().id()).as("the next member starts after the settled records")
          .isEqualTo(published.get(settled));
      assertThat(batch.get(0).redelivered()).as("the first record of a new assignment is a suspect").isTrue();
    }
  }
}
