package io.twinbox.kafka.internal;

import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.OutboxMessage;
import java.util.regex.Pattern;

/** Sends every message to one topic. */
public record FixedTopicRouter(String topic) implements TopicRouter {
  /** Kafka's rule for topic names. */
  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  public FixedTopicRouter {
    if (topic == null || !LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
      throw new IllegalArgumentException(
          "topic must be 1-249 characters of [a-zA-Z0-9._-], and not '.' or '..'");
    }
  }

  @Override
  public String topicFor(OutboxMessage message) {
    return topic;
  }

  @Override
  public String toString() {
    return "TopicRouter.fixed(" + topic + ")";
  }
}
