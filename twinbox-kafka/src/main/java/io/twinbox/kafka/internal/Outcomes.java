package io.twinbox.kafka.internal;

import io.twinbox.spi.PublishOutcome;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Sorts a Kafka producer's failures into the relay's four outcomes, and spots the fatal ones after
 * which a producer must be replaced. Stateless and thread-safe.
 *
 * <p>Kafka wraps some errors (a producer in a fatal state throws {@code KafkaException} with the
 * original error as its cause), so every rule looks along the cause chain.
 */
public final class Outcomes {
  /** Longest reason handed to the relay; reasons end up in {@code last_error}. */
  public static final int MAX_REASON_LENGTH = 500;

  /** The event's own fault: it will fail the same way every time. */
  private static final List<Class<? extends Throwable>> REJECTED = List.of(
      RecordTooLargeException.class,
      RecordBatchTooLargeException.class,
      InvalidTopicException.class,
      TopicAuthorizationException.class,
      SerializationException.class,
      InvalidRecordException.class);

  /**
   * Errors that put a producer in a state it does not leave (Kafka's {@code TransactionManager}
   * goes to FATAL_ERROR on the first four), or that mean the broker lost this producer's state.
   * FAULTS.md rule 13: recreate the producer after them.
   */
  private static final List<Class<? extends Throwable>> FATAL = List.of(
      ClusterAuthorizationException.class,
      TransactionalIdAuthorizationException.class,
      ProducerFencedException.class,
      UnsupportedVersionException.class,
      OutOfOrderSequenceException.class,
      UnknownProducerIdException.class,
      InvalidProducerEpochException.class);

  /** The broker or the connection, not the event: costs no attempt. */
  private static final List<Class<? extends Throwable>> UNAVAILABLE = List.of(
      TimeoutException.class,
      RetriableException.class,
      AuthenticationException.class,
      InterruptException.class,
      IllegalStateException.class);

  private Outcomes() {}

  /**
   * Classifies a failure of {@code producer.send}, thrown or passed to the callback.
   *
   * @param retired true when the producer that sent the record has since been closed by Twinbox;
   *     whatever it then reports (typically "producer closed forcefully") is not the event's fault
   */
  public static PublishOutcome classify(Throwable failure, boolean retired) {
    Throwable e = unwrap(failure);
    if (find(e, REJECTED) != null) {
      return PublishOutcome.rejected(reason(e));
    }
    if (retired || find(e, FATAL) != null || find(e, UNAVAILABLE) != null) {
      return PublishOutcome.unavailable(reason(e));
    }
    return PublishOutcome.retry(reason(e));
  }

  /**
   * True when the cluster answered that the topic (or partition) does not exist: an {@code
   * UnknownTopicOrPartitionException} anywhere in the chain — the producer's metadata timeout
   * carries the last metadata answer's error as its cause. {@link #classify} still calls this
   * {@code UNAVAILABLE} (it is a retriable error); the sender confirms it with an admin request
   * before it rejects the event.
   */
  public static boolean isUnknownTopic(Throwable failure) {
    return find(unwrap(failure), List.of(UnknownTopicOrPartitionException.class)) != null;
  }

  /** True when the producer that reported {@code failure} must be closed and replaced. */
  public static boolean isFatal(Throwable failure) {
    return find(unwrap(failure), FATAL) != null;
  }

  /** {@code SimpleName: message}, plus the first cause, cut to {@link #MAX_REASON_LENGTH}. */
  public static String reason(Throwable failure) {
    Throwable e = unwrap(failure);
    String text = describe(e);
    Throwable cause = e.getCause();
    if (cause != null && cause != e) {
      text += " (caused by " + describe(cause) + ")";
    }
    return text.length() <= MAX_REASON_LENGTH ? text : text.substring(0, MAX_REASON_LENGTH - 3) + "...";
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return message == null || message.isBlank()
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + message;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static Throwable find(Throwable e, List<Class<? extends Throwable>> types) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 10; t = t.getCause(), depth++) {
      for (Class<? extends Throwable> type : types) {
        if (type.isInstance(t)) {
          return t;
        }
      }
    }
    return null;
  }
}
