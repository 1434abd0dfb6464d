package io.twinbox.kafka.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TopicCheck} by {@code Admin.describeTopics}, whose metadata request never creates a
 * topic (unlike a producer's, which may trigger {@code auto.create.topics.enable}).
 *
 * <p>The admin client is created on the first check, i.e. only once a topic looked missing, and
 * with the producer's connection and security settings. Thread-safe.
 */
public final class AdminTopicCheck implements TopicCheck, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminTopicCheck.class);

  private final Map<String, Object> properties;
  private final long timeoutMs;
  private final Object lock = new Object();
  private Admin admin;
  private boolean closed;

  /**
   * @param properties the admin client's properties ({@link ProducerSettings#adminProperties()})
   * @param timeoutMs the longest a check may take
   */
  public AdminTopicCheck(Map<String, Object> properties, long timeoutMs) {
    this.properties = Map.copyOf(properties);
    this.timeoutMs = timeoutMs;
  }

  @Override
  public Answer check(String topic) {
    Answer answer = ask(topic);
    if (answer.kind() == Kind.UNKNOWN) {
      LOG.warn("Cannot tell whether Kafka topic {} exists: {}", topic, answer.detail());
    }
    return answer;
  }

  private Answer ask(String topic) {
    Admin a;
    try {
      a = admin();
    } catch (RuntimeException e) {
      return Answer.unknown("cannot create a Kafka admin client: " + Outcomes.reason(e));
    }
    if (a == null) {
      return Answer.unknown("the Kafka publisher is closed");
    }
    try {
      a.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs((int) timeoutMs))
          .topicNameValues().get(topic).get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
      return Answer.EXISTS;
    } catch (ExecutionException e) {
      return e.getCause() instanceof UnknownTopicOrPartitionException
          ? Answer.MISSING
          : Answer.unknown(Outcomes.reason(e.getCause() == null ? e : e.getCause()));
    } catch (TimeoutException e) {
      return Answer.unknown("no answer to describeTopics within " + timeoutMs + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Answer.unknown("interrupted");
    } catch (RuntimeException e) {
      return Answer.unknown(Outcomes.reason(e));
    }
  }

  private Admin admin() {
    synchronized (lock) {
      if (closed) {
        return null;
      }
      if (admin == null) {
        admin = Admin.create(properties);
      }
      return admin;
    }
  }

  /** Closes the admin client if one was created. Idempotent. */
  @Override
  public void close() {
    Admin a;
    synchronized (lock) {
      closed = true;
      a = admin;
      admin = null;
    }
    if (a != null) {
      try {
        a.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        LOG.warn("Closing the Kafka admin client failed: {}", e.getClass().getSimpleName());
      }
    }
  }
}
