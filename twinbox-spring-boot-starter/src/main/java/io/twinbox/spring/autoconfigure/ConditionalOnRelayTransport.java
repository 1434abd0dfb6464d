package io.twinbox.spring.autoconfigure;

import io.twinbox.spring.StarterSettings.Broker;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code twinbox.relay.transport} is unset or, bound as Spring binds it (any case,
 * {@code rabbit-mq} too), names {@link #value()}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnRelayTransportCondition.class)
public @interface ConditionalOnRelayTransport {

  /** The broker of the annotated publisher. */
  Broker value();
}
