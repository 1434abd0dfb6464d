package io.twinbox.kafka.internal;

import io.twinbox.kafka.TopicRouter;
import io.twinbox.spi.OutboxMessage;
import java.util.Locale;

/** The default router: the aggregate type, lowercased, other characters replaced by '-'. */
public enum AggregateTypeRouter implements TopicRouter {
  INSTANCE;

  @Override
  public String topicFor(OutboxMessage message) {
    return topicName(message.aggregateType());
  }

  /**
   * {@code "Order"} → {@code "order"}, {@code "Billing Invoice"} → {@code "billing-invoice"}.
   *
   * @throws IllegalArgumentException when {@code aggregateType} is null or blank
   */
  public static String topicName(String aggregateType) {
    if (aggregateType == null || aggregateType.isBlank()) {
      throw new IllegalArgumentException("the default topic router needs an aggregateType");
    }
    String lower = aggregateType.toLowerCase(Locale.ROOT);
    StringBuilder topic = new StringBuilder(lower.length());
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      boolean legal = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      topic.append(legal ? c : '-');
    }
    return topic.toString();
  }

  @Override
  public String toString() {
    return "TopicRouter.byAggregateType()";
  }
}
