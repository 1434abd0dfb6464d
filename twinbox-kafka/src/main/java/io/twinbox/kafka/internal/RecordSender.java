package io.twinbox.kafka.internal;

import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.ParkedLetter;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.WireAttributes;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The send path of {@code KafkaPublisher}: route, encode, hand to the producer, classify.
 *
 * <p><b>A topic that does not exist</b> is a rejection of the events routed to it, never an outage:
 * the producer waits {@code max.block.ms} for the topic's metadata (the broker may create it) and
 * then fails with a {@code TimeoutException} caused by {@code UnknownTopicOrPartitionException}
 * when the cluster answered that it has no such topic. That answer is confirmed with an admin
 * {@code describeTopics} (which never creates a topic) and only then is the event {@code REJECTED};
 * the {@link TopicGate} then rejects further events of that topic at once, without waiting again.
 * A metadata timeout while the cluster does not answer (no such cause, or no admin answer) stays
 * {@code UNAVAILABLE}. The decision rests on exception types and the cluster's answers only.
 *
 * <p>Every path ends in a completed or completing future; nothing is thrown and no future completes
 * exceptionally. Thread-safe.
 */
public final class RecordSender {
  private final ProducerHolder holder;
  private final TopicRouter router;
  private final TopicGate gate;
  private final TopicCheck topics;
  private final LongSupplier nanoTime;

  public RecordSender(ProducerHolder holder, TopicRouter router, TopicGate gate, TopicCheck topics,
      LongSupplier nanoTime) {
    this.holder = holder;
    this.router = router;
    this.gate = gate;
    this.topics = topics;
    this.nanoTime = nanoTime;
  }

  public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
    return send(m, source -> WireAttributes.of(m, source));
  }

  /** Publishes a dead letter: its event's record with the dead-letter extensions, routed by this sender's router. */
  public CompletableFuture<PublishOutcome> send(DeadLetter d) {
    return send(d.message(), source -> WireAttributes.of(d, source));
  }

  /** Forwards a parked message: its stand-in's key, body and route, its own attributes (original id). */
  public CompletableFuture<PublishOutcome> send(ParkedLetter p) {
    return send(p.standIn(), source -> WireAttributes.of(p, source));
  }

  private CompletableFuture<PublishOutcome> send(OutboxMessage m,
      java.util.function.Function<URI, java.util.Map<String, Object>> attributes) {
    if (holder.isClosed()) {
      return done(PublishOutcome.unavailable("the Kafka publisher is closed"));
    }
    URI source = WireAttributes.sourceOrNull(m.source());
    if (source == null) { // the relay's configuration, not this event: hold everything back, fail nothing
      return done(PublishOutcome.unavailable(WireAttributes.INVALID_SOURCE));
    }
    String topic;
    ProducerRecord<String, byte[]> record;
    try {
      topic = router.topicFor(m);
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("the topic router returned no topic");
      }
      record = CloudEventRecords.toRecord(topic, m, attributes.apply(source));
    } catch (RuntimeException e) {
      return done(PublishOutcome.rejected("cannot route or encode the event: " + Outcomes.reason(e)));
    }
    switch (gate.state(topic)) {
      case UNREACHABLE -> {
        return done(PublishOutcome.unavailable("topic " + topic + " is unreachable: a send just waited "
            + "max.block.ms for its metadata or for buffer space; failing fast for as long again"));
      }
      case MISSING -> {
        return done(missing(topic));
      }
      case RECHECK -> {
        if (topics.check(topic).kind() == TopicCheck.Kind.MISSING) {
          gate.missing(topic);
          return done(missing(topic));
        }
        gate.forgetMissing(topic); // exists again, or no answer: the producer decides
      }
      case OPEN -> {
        // send below
      }
    }
    Producer<String, byte[]> producer;
    try {
      producer = holder.acquire();
    } catch (RuntimeException e) {
      return done(PublishOutcome.unavailable("cannot create a Kafka producer: " + Outcomes.reason(e)));
    }
    // The callback only hands the answer over; it is classified below, because a failure reported
    // during send() itself (KafkaProducer passes its metadata timeout to the callback before it
    // returns) may need an admin check, which must run on this thread, not the producer's.
    CompletableFuture<Exception> answer = new CompletableFuture<>();
    long start = nanoTime.getAsLong();
    try {
      producer.send(record, (metadata, failure) -> answer.complete(failure));
    } catch (RuntimeException e) {
      // A plain KafkaException thrown by send() itself is how a producer in a fatal idempotence
      // state answers ("Cannot perform send because at least one previous ... request has failed").
      if (e.getClass() == KafkaException.class) {
        PublishOutcome o = outcome(producer, e, true);
        gate.record(topic, start, true);
        return done(o);
      }
      answer.complete(e);
    }
    if (answer.isDone()) {
      Exception failure = answer.join();
      if (failure != null && Outcomes.isUnknownTopic(failure)
          && topics.check(topic).kind() == TopicCheck.Kind.MISSING) {
        gate.missing(topic);
        return done(missing(topic));
      }
      PublishOutcome o = outcome(producer, failure, false);
      gate.record(topic, start, o.kind() != PublishOutcome.Kind.ACKED);
      return done(o);
    }
    return answer.thenApply(failure -> {
      if (failure != null && Outcomes.isUnknownTopic(failure)) {
        gate.suspectMissing(topic); // e.g. deleted after the producer learnt its partitions
      }
      return outcome(producer, failure, false);
    });
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

  private static PublishOutcome missing(String topic) {
    return PublishOutcome.rejected("topic '" + topic + "' does not exist: the cluster answered "
        + "UNKNOWN_TOPIC_OR_PARTITION and did not create it (auto.create.topics.enable=false or not "
        + "allowed); create the topic or fix the topic router, then retry the FAILED events");
  }

  private static CompletableFuture<PublishOutcome> done(PublishOutcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }
}
