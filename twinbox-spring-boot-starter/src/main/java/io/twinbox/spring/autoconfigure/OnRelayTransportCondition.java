package io.twinbox.spring.autoconfigure;

import io.twinbox.spring.TwinboxProperties.Broker;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnRelayTransport}: binds the property as the properties class does. */
class OnRelayTransportCondition extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    Broker wanted = (Broker) metadata.getAnnotationAttributes(ConditionalOnRelayTransport.class.getName()).get("value");
    Broker chosen = Binder.get(context.getEnvironment()).bind("twinbox.relay.transport", Broker.class).orElse(null);
    if (chosen == null || chosen == wanted) {
      return ConditionOutcome.match("twinbox.relay.transport is " + (chosen == null ? "not set" : chosen));
    }
    return ConditionOutcome.noMatch("twinbox.relay.transport is " + chosen + ", not " + wanted);
  }
}
