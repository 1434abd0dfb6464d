package io.twinbox.kafka.internal;

import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The send path of {@code KafkaPublisher}: route, encode, hand to the producer, classify.
 *
 * <p>Every path ends in a completed or completing future; nothing is thrown and no future completes
 * exceptionally. Thread-safe.
 */
public final class RecordSender {
  private final ProducerHolder holder;
  private final TopicRouter router;
  private final TopicGate gate;
  private final LongSupplier nanoTime;

  public RecordSender(ProducerHolder holder, TopicRouter router, TopicGate gate, LongSupplier nanoTime) {
    this.holder = holder;
    this.router = router;
    this.gate = gate;
    this.nanoTime = nanoTime;
  }

  public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
    if (holder.isClosed()) {
      return done(PublishOutcome.unavailable("the Kafka publisher is closed"));
    }
    URI source;
    try {
      source = CloudEventRecords.source(m.source());
    } catch (IllegalArgumentException e) {
      // The relay's configuration, not this event, is wrong: hold everything back, fail nothing.
      return done(PublishOutcome.unavailable(
          "the relay's CloudEvents source is not a URI-reference; fix it in Relay.Builder.source"));
    }
    String topic;
    ProducerRecord<String, byte[]> record;
    try {
      topic = router.topicFor(m);
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("the topic router returned no topic");
      }
      record = CloudEventRecords.toRecord(topic, m, source);
    } catch (RuntimeException e) {
      return done(PublishOutcome.rejected("cannot route or encode the event: " + Outcomes.reason(e)));
    }
    if (!gate.isOpen(topic)) {
      return done(PublishOutcome.unavailable("topic " + topic + " is unreachable: a send just waited "
          + "max.block.ms for its metadata or for buffer space; failing fast for as long again"));
    }
    Producer<String, byte[]> producer;
    try {
      producer = holder.acquire();
    } catch (RuntimeException e) {
      return done(PublishOutcome.unavailable("cannot create a Kafka producer: " + Outcomes.reason(e)));
    }
    CompletableFuture<PublishOutcome> future = new CompletableFuture<>();
    long start = nanoTime.getAsLong();
    try {
      producer.send(record, (metadata, failure) -> future.complete(outcome(producer, failure, false)));
    } catch (RuntimeException e) {
      // A plain KafkaException thrown by send() itself is how a producer in a fatal idempotence
      // state answers ("Cannot perform send because at least one previous ... request has failed").
      future.complete(outcome(producer, e, e.getClass() == KafkaException.class));
    }
    gate.record(topic, start, future.isDone() && future.join().kind() != PublishOutcome.Kind.ACKED);
    return future;
  }

  private PublishOutcome outcome(Producer<String, byte[]> producer, Exception failure, boolean fatal) {
    if (failure == null) {
      return PublishOutcome.acked();
    }
    try {
      if (fatal || Outcomes.isFatal(failure)) {
        holder.retire(producer, Outcomes.reason(failure));
      }
      return Outcomes.classify(failure, holder.isRetired(producer));
    } catch (RuntimeException e) {
      // Never leave the future incomplete: the relay would wait for its whole publish timeout.
      return PublishOutcome.unavailable(Outcomes.reason(failure));
    }
  }

  private static CompletableFuture<PublishOutcome> done(PublishOutcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }
}
