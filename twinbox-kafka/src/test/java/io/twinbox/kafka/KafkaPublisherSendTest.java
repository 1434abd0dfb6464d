package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.kafka.internal.ProducerSettings;
import io.twinbox.kafka.internal.TopicCheck;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The send path against Kafka's own {@link MockProducer} fake, for the answers a real broker can't
 * be made to give on demand (fenced producer, fatal state). Broker behaviour proper is covered by
 * {@link KafkaPublisherBrokerTest} and {@link KafkaBrokerOutageTest}.
 */
class KafkaPublisherSendTest {
  private final List<MockProducer<String, byte[]>> producers = new ArrayList<>();
  private Supplier<Producer<String, byte[]>> factory = () -> {
    MockProducer<String, byte[]> p =
        new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    producers.add(p);
    return p;
  };
  private KafkaPublisher publisher;
  /** What the fake cluster answers when asked whether a topic exists, and how often it was asked. */
  private final AtomicReference<TopicCheck.Answer> clusterSays =
      new AtomicReference<>(TopicCheck.Answer.unknown("not asked yet"));
  private final AtomicInteger checks = new AtomicInteger();

  private KafkaPublisher publisher(TopicRouter router) {
    publisher = new KafkaPublisher(ProducerSettings.of(Map.of("bootstrap.servers", "127.0.0.1:9")), router,
        () -> factory.get(), topic -> {
          checks.incrementAndGet();
          return clusterSays.get();
        });
    return publisher;
  }

  private KafkaPublisher publisher() {
    return publisher(TopicRouter.byAggregateType());
  }

  @AfterEach
  void close() {
    if (publisher != null) {
      publisher.close();
    }
  }

  private static PublishOutcome now(CompletableFuture<PublishOutcome> f) {
    assertThat(f).isDone();
    assertThat(f.isCompletedExceptionally()).isFalse();
    return f.join();
  }

  @Test
  void anAcknowledgedRecordIsAcked() {
    KafkaPublisher p = publisher();
    CompletableFuture<PublishOutcome> f = p.send(Messages.full("Order", "o-1", 1));
    assertThat(f).isNotDone();
    producers.get(0).completeNext();

    assertThat(now(f)).isEqualTo(PublishOutcome.acked());
    assertThat(producers.get(0).history()).singleElement()
        .satisfies(r -> assertThat(r.topic()).isEqualTo("order"))
        .satisfies(r -> assertThat(r.key()).isEqualTo("o-1"));
  }

  @Test
  void brokerAnswersAreClassified() {
    KafkaPublisher p = publisher();
    CompletableFuture<PublishOutcome> tooLarge = p.send(Messages.full("Order", "o-1", 1));
    CompletableFuture<PublishOutcome> network = p.send(Messages.full("Order", "o-2", 1));
    CompletableFuture<PublishOutcome> unknown = p.send(Messages.full("Order", "o-3", 1));
    producers.get(0).errorNext(new RecordTooLargeException("The message is too large"));
    producers.get(0).errorNext(new NetworkException("connection lost"));
    producers.get(0).errorNext(new UnknownServerException("boom"));

    assertThat(now(tooLarge)).isEqualTo(PublishOutcome.rejected("RecordTooLargeException: The message is too large"));
    assertThat(now(network).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(now(unknown)).isEqualTo(PublishOutcome.retry("UnknownServerException: boom"));
    assertThat(producers).hasSize(1);
  }

  @Test
  void aFatalErrorReplacesTheProducerAndItsOtherRecordsAreUnavailable() {
    KafkaPublisher p = publisher();
    CompletableFuture<PublishOutcome> first = p.send(Messages.full("Order", "o-1", 1));
    CompletableFuture<PublishOutcome> second = p.send(Messages.full("Order", "o-2", 1));
    MockProducer<String, byte[]> old = producers.get(0);
    old.errorNext(new ProducerFencedException("fenced"));

    assertThat(now(first).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(old.closed()).isTrue();
    // What a force-closed KafkaProducer reports for a record it never sent.
    old.errorNext(new KafkaException("Producer is closed forcefully."));
    assertThat(now(second).kind()).isEqualTo(Kind.UNAVAILABLE);

    CompletableFuture<PublishOutcome> third = p.send(Messages.full("Order", "o-3", 1));
    assertThat(producers).hasSize(2);
    producers.get(1).completeNext();
    assertThat(now(third).kind()).isEqualTo(Kind.ACKED);
  }

  @Test
  void aProducerInAFatalStateIsReplacedWhenSendThrows() {
    KafkaPublisher p = publisher();
    producers.get(0).sendException = new KafkaException("Cannot perform send because at least one previous "
        + "transactional or idempotent request has failed with errors.", new ClusterAuthorizationException("no"));

    assertThat(now(p.send(Messages.full("Order", "o-1", 1))).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(producers.get(0).closed()).isTrue();
    p.send(Messages.full("Order", "o-2", 1));
    assertThat(producers).hasSize(2);
  }

  @Test
  void aProducerThatCannotBeRecreatedMeansUnavailable() {
    KafkaPublisher p = publisher();
    p.send(Messages.full("Order", "o-1", 1));
    factory = () -> {
      throw new KafkaException("Failed to construct kafka producer");
    };
    producers.get(0).errorNext(new ProducerFencedException("fenced"));

    PublishOutcome o = now(p.send(Messages.full("Order", "o-2", 1)));
    assertThat(o.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(o.reason()).startsWith("cannot create a Kafka producer: KafkaException");
  }

  @Test
  void aClosedProducerMeansUnavailable() {
    KafkaPublisher p = publisher();
    producers.get(0).close();
    assertThat(now(p.send(Messages.full("Order", "o-1", 1))).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aClosedPublisherAnswersUnavailableWithoutThrowing() {
    KafkaPublisher p = publisher();
    p.close();
    p.close();
    assertThat(producers.get(0).closed()).isTrue();
    assertThat(now(p.send(Messages.full("Order", "o-1", 1))))
        .isEqualTo(PublishOutcome.unavailable("the Kafka publisher is closed"));
    assertThat(producers).hasSize(1);
  }

  @Test
  void aRouterFailureRejectsTheEventWithoutSendingIt() {
    KafkaPublisher throwing = publisher(m -> {
      throw new IllegalArgumentException("no route for " + m.type());
    });
    PublishOutcome o = now(throwing.send(Messages.full("Order", "o-1", 1)));
    assertThat(o.kind()).isEqualTo(Kind.REJECTED);
    assertThat(o.reason()).contains("no route for com.example.OrderCreated");
    throwing.close();

    KafkaPublisher blank = publisher(m -> " ");
    assertThat(now(blank.send(Messages.full("Order", "o-1", 1))).kind()).isEqualTo(Kind.REJECTED);
    assertThat(producers).allSatisfy(mp -> assertThat(mp.history()).isEmpty());
  }

  @Test
  void anInvalidRelaySourceHoldsEverythingBackWithoutFailingIt() {
    KafkaPublisher p = publisher();
    OutboxMessage m = Messages.full("Order", "o-1", 1).withSource("not a uri");
    PublishOutcome o = now(p.send(m));
    assertThat(o.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(o.reason()).contains("source");
  }

  /** What KafkaProducer.send reports after max.block.ms when the cluster said "no such topic". */
  private static TimeoutException metadataTimeout(boolean clusterAnswered) {
    String text = "Topic order not present in metadata after 5000 ms.";
    return clusterAnswered
        ? new TimeoutException(text, new UnknownTopicOrPartitionException("This server does not host this topic-partition."))
        : new TimeoutException(text);
  }

  @Test
  void aMissingTopicIsRejectedOnlyWhenTheAdminAnswerConfirmsTheProducersMetadata() {
    KafkaPublisher p = publisher();
    producers.get(0).sendException = metadataTimeout(true);

    // The admin request gets no answer: nothing is decided, the event waits (no attempt used).
    assertThat(now(p.send(Messages.full("Order", "o-1", 1))).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(checks).hasValue(1);

    clusterSays.set(TopicCheck.Answer.MISSING);
    PublishOutcome o = now(p.send(Messages.full("Order", "o-2", 1)));
    assertThat(o.kind()).isEqualTo(Kind.REJECTED);
    assertThat(o.reason()).startsWith("topic 'order' does not exist").contains("UNKNOWN_TOPIC_OR_PARTITION");
    assertThat(checks).hasValue(2);

    // Within the verdict's window: rejected at once, no producer wait, no second admin request.
    for (int i = 3; i < 50; i++) {
      assertThat(now(p.send(Messages.full("Order", "o-" + i, 1))).kind()).isEqualTo(Kind.REJECTED);
    }
    assertThat(checks).hasValue(2);
    // Other topics go to the producer as before.
    producers.get(0).sendException = null;
    CompletableFuture<PublishOutcome> other = p.send(Messages.full("Payment", "p-1", 1));
    producers.get(0).completeNext();
    assertThat(now(other)).isEqualTo(PublishOutcome.acked());
  }

  @Test
  void aMetadataTimeoutWithoutTheClustersAnswerIsAnOutageAndAsksNothing() {
    KafkaPublisher p = publisher();
    clusterSays.set(TopicCheck.Answer.MISSING);
    producers.get(0).sendException = metadataTimeout(false); // the cluster never answered

    PublishOutcome o = now(p.send(Messages.full("Order", "o-1", 1)));
    assertThat(o.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(o.reason()).startsWith("TimeoutException");
    assertThat(checks).hasValue(0);
  }

  @Test
  void aBrokerRefusingARecordAsUnknownMakesTheNextSendAskTheClusterFirst() {
    KafkaPublisher p = publisher();
    CompletableFuture<PublishOutcome> first = p.send(Messages.full("Order", "o-1", 1));
    producers.get(0).errorNext(new UnknownTopicOrPartitionException("This server does not host this topic-partition."));
    assertThat(now(first).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(checks).hasValue(0);

    clusterSays.set(TopicCheck.Answer.MISSING);
    assertThat(now(p.send(Messages.full("Order", "o-2", 1))).kind()).isEqualTo(Kind.REJECTED);
    assertThat(checks).hasValue(1);
    assertThat(producers.get(0).history()).hasSize(1); // o-2 never reached the producer
  }

  @Test
  void aRecheckThatFindsTheTopicSendsThroughTheProducerAgain() {
    KafkaPublisher p = publisher();
    CompletableFuture<PublishOutcome> first = p.send(Messages.full("Order", "o-1", 1));
    producers.get(0).errorNext(new UnknownTopicOrPartitionException("This server does not host this topic-partition."));
    assertThat(now(first).kind()).isEqualTo(Kind.UNAVAILABLE);

    clusterSays.set(TopicCheck.Answer.EXISTS); // e.g. recreated meanwhile
    CompletableFuture<PublishOutcome> second = p.send(Messages.full("Order", "o-2", 1));
    assertThat(checks).hasValue(1);
    producers.get(0).completeNext();
    assertThat(now(second)).isEqualTo(PublishOutcome.acked());
    p.send(Messages.full("Order", "o-3", 1));
    assertThat(checks).as("no recheck once the topic was found").hasValue(1);
  }
}
