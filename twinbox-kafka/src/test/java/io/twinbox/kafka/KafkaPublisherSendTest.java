package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.kafka.internal.ProducerSettings;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownServerException;
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

  private KafkaPublisher publisher(TopicRouter router) {
    publisher = new KafkaPublisher(ProducerSettings.of(Map.of("bootstrap.servers", "127.0.0.1:9")), router,
        () -> factory.get());
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
}
