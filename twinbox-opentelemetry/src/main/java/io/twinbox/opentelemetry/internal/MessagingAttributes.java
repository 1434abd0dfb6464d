package io.twinbox.opentelemetry.internal;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The span attributes Twinbox sets: OpenTelemetry's messaging and CloudEvents semantic conventions
 * (as of semconv 1.27+), spelled out here so that no incubating semconv artifact is needed at run
 * time, plus a few {@code twinbox.*} attributes of our own.
 */
public final class MessagingAttributes {
  public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  public static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
  public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
  public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
  public static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  /** The correlation id: semconv calls it the conversation id. */
  public static final AttributeKey<String> CONVERSATION_ID =
      AttributeKey.stringKey("messaging.message.conversation_id");
  public static final AttributeKey<Long> BODY_SIZE = AttributeKey.longKey("messaging.message.body.size");
  public static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
  public static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("cloudevents.event_type");
  public static final AttributeKey<String> EVENT_SOURCE = AttributeKey.stringKey("cloudevents.event_source");
  public static final AttributeKey<String> EVENT_SUBJECT = AttributeKey.stringKey("cloudevents.event_subject");
  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  public static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("twinbox.aggregate.type");
  public static final AttributeKey<String> CAUSATION_ID = AttributeKey.stringKey("twinbox.causation_id");
  public static final AttributeKey<Long> SEQUENCE = AttributeKey.longKey("twinbox.sequence");
  /** 1 for the first publish of a message, 2 for its first retry, … */
  public static final AttributeKey<Long> PUBLISH_ATTEMPT = AttributeKey.longKey("twinbox.publish.attempt");
  /** {@code acked}, {@code retry}, {@code rejected} or {@code unavailable}. */
  public static final AttributeKey<String> PUBLISH_OUTCOME = AttributeKey.stringKey("twinbox.publish.outcome");
  /** Where a consumed message came from, e.g. {@code orders-3@1234}. */
  public static final AttributeKey<String> ORIGIN = AttributeKey.stringKey("twinbox.message.origin");

  /** The instrumentation scope of every Twinbox span. */
  public static final String SCOPE = "io.twinbox.opentelemetry";

  private MessagingAttributes() {}
}
