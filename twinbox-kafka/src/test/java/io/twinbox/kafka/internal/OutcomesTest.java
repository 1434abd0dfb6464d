package io.twinbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

class OutcomesTest {

  private static Kind kind(Throwable e) {
    return Outcomes.classify(e, false).kind();
  }

  @Test
  void theEventsOwnFaultsAreRejected() {
    assertThat(kind(new RecordTooLargeException("too big"))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new RecordBatchTooLargeException("too big"))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new InvalidTopicException("bad"))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new TopicAuthorizationException("denied"))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new SerializationException("bad"))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new InvalidRecordException("bad"))).isEqualTo(Kind.REJECTED);
  }

  @Test
  void brokerAndConnectionTroubleIsUnavailable() {
    assertThat(kind(new TimeoutException("expired"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new NetworkException("gone"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new NotEnoughReplicasException("isr"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new NotEnoughReplicasAfterAppendException("isr"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new NotLeaderOrFollowerException("moved"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new DisconnectException("bye"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new UnknownTopicOrPartitionException("none"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new SaslAuthenticationException("bad credentials"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new IllegalStateException("producer closed"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new ClusterAuthorizationException("no IDEMPOTENT_WRITE"))).isEqualTo(Kind.UNAVAILABLE);
    assertThat(kind(new ProducerFencedException("fenced"))).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void interruptionIsUnavailableAndKeepsTheFlag() {
    assertThat(kind(new InterruptException("interrupted"))).isEqualTo(Kind.UNAVAILABLE);
    // Kafka's InterruptException restores the flag itself; leave no interrupted test thread behind.
    assertThat(Thread.interrupted()).isTrue();
  }

  @Test
  void anythingElseIsRetried() {
    assertThat(kind(new UnknownServerException("oops"))).isEqualTo(Kind.RETRY);
    assertThat(kind(new KafkaException("something"))).isEqualTo(Kind.RETRY);
    assertThat(kind(new RuntimeException())).isEqualTo(Kind.RETRY);
  }

  @Test
  void aRetiredProducersFailuresAreUnavailableUnlessTheEventIsAtFault() {
    assertThat(Outcomes.classify(new KafkaException("Producer is closed forcefully."), true).kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(Outcomes.classify(new RecordTooLargeException("too big"), true).kind()).isEqualTo(Kind.REJECTED);
  }

  @Test
  void causesAndWrappersAreLookedThrough() {
    KafkaException fatalState = new KafkaException("Cannot perform send because at least one previous "
        + "transactional or idempotent request has failed with errors.", new ClusterAuthorizationException("x"));
    assertThat(kind(fatalState)).isEqualTo(Kind.UNAVAILABLE);
    assertThat(Outcomes.isFatal(fatalState)).isTrue();
    assertThat(kind(new CompletionException(new RecordTooLargeException("big")))).isEqualTo(Kind.REJECTED);
    assertThat(kind(new ExecutionException(new NetworkException("gone")))).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void fatalErrorsAreRecognised() {
    assertThat(Outcomes.isFatal(new ProducerFencedException("f"))).isTrue();
    assertThat(Outcomes.isFatal(new OutOfOrderSequenceException("o"))).isTrue();
    assertThat(Outcomes.isFatal(new NetworkException("n"))).isFalse();
    assertThat(Outcomes.isFatal(new RecordTooLargeException("r"))).isFalse();
  }

  @Test
  void reasonsNameTheExceptionAndAreBounded() {
    PublishOutcome o = Outcomes.classify(new RecordTooLargeException("The message is 2097152 bytes"), false);
    assertThat(o.reason()).isEqualTo("RecordTooLargeException: The message is 2097152 bytes");
    assertThat(Outcomes.reason(new NetworkException())).isEqualTo("NetworkException");
    assertThat(Outcomes.reason(new UnknownServerException("y".repeat(2000))))
        .hasSize(Outcomes.MAX_REASON_LENGTH).endsWith("...");
    assertThat(Outcomes.reason(new KafkaException("outer", new NetworkException("inner"))))
        .isEqualTo("KafkaException: outer (caused by NetworkException: inner)");
  }
}
