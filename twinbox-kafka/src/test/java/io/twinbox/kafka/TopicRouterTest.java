package io.twinbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicRouterTest {

  @Test
  void defaultRouterLowercasesTheAggregateType() {
    assertThat(TopicRouter.byAggregateType().topicFor(Messages.full("Order", "o-1", 1))).isEqualTo("order");
  }

  @Test
  void defaultRouterReplacesIllegalCharacters() {
    TopicRouter router = TopicRouter.byAggregateType();
    assertThat(router.topicFor(Messages.minimal("Billing Invoice/v2"))).isEqualTo("billing-invoice-v2");
    assertThat(router.topicFor(Messages.minimal("Straße:Ärger"))).isEqualTo("stra-e--rger");
    assertThat(router.topicFor(Messages.minimal("shop.order_line-2"))).isEqualTo("shop.order_line-2");
  }

  @Test
  void defaultRouterDescribesItself() {
    assertThat(TopicRouter.byAggregateType()).hasToString("TopicRouter.byAggregateType()");
  }

  @Test
  void fixedRouterSendsEverythingToOneTopic() {
    TopicRouter router = TopicRouter.fixed("all-events");
    assertThat(router.topicFor(Messages.full("Order", "o-1", 1))).isEqualTo("all-events");
    assertThat(router.topicFor(Messages.minimal("Payment"))).isEqualTo("all-events");
    assertThat(router).hasToString("TopicRouter.fixed(all-events)");
  }

  @Test
  void fixedRouterRefusesIllegalTopicNames() {
    for (String bad : new String[] {"", "has space", "..", ".", "x".repeat(250), "ünicode"}) {
      assertThatThrownBy(() -> TopicRouter.fixed(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("topic");
    }
    assertThatThrownBy(() -> TopicRouter.fixed(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
