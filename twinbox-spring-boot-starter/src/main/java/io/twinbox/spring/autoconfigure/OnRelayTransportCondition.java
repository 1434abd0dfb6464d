package io.twinbox.spring.autoconfigure;

import io.twinbox.spring.StarterSettings;
import io.twinbox.spring.StarterSettings.Broker;
import io.twinbox.spring.TwinboxSettings;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnRelayTransport}: binds the property as {@link TwinboxSettings} does. */
class OnRelayTransportCondition extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    Broker wanted = (Broker) metadata.getAnnotationAttributes(ConditionalOnRelayTransport.class.getName()).get("value");
    Broker chosen = Binder.get(context.getEnvironment()).bind(TwinboxSettings.property(StarterSettings.RELAY,
        StarterSettings.RELAY_TRANSPORT), Broker.class).orElse(null);
    if (chosen == null || chosen == wanted) {
      return ConditionOutcome.match("twinbox.relay.transport is " + (chosen == null ? "not set" : chosen));
    }
    return ConditionOutcome.noMatch("twinbox.relay.transport is " + chosen + ", not " + wanted);
  }
}
