package io.twinbox.spring.internal;

import io.micrometer.observation.ObservationRegistry;
import io.twinbox.InboxHandler;
import io.twinbox.micrometer.ObservedInboxHandler;
import io.twinbox.micrometer.ObservedTransport;
import io.twinbox.spi.Transport;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Wraps the relay's transport and the inbox handlers in Micrometer observations when the
 * application has an {@link ObservationRegistry} (Spring Boot's, with Actuator); otherwise hands
 * them back unchanged. The registry is looked up when a part is built, not when this bean is.
 */
public final class ObservedParts {
  private final ObjectProvider<ObservationRegistry> registry;

  public ObservedParts(ObjectProvider<ObservationRegistry> registry) {
    this.registry = registry;
  }

  /** {@code handler}, observed when the application context has this bean and a registry. */
  public static InboxHandler handler(ObjectProvider<ObservedParts> parts, InboxHandler handler, String consumer) {
    ObservedParts p = parts.getIfAvailable();
    return p == null ? handler : p.handler(handler, consumer);
  }

  /** {@code transport}, observed when the application context has this bean and a registry. */
  public static Transport transport(ObjectProvider<ObservedParts> parts, Transport transport) {
    ObservedParts p = parts.getIfAvailable();
    return p == null ? transport : p.transport(transport);
  }

  public Transport transport(Transport transport) {
    ObservationRegistry r = registry.getIfAvailable();
    return r == null || r.isNoop() || transport instanceof ObservedTransport ? transport
        : ObservedTransport.wrap(transport, r);
  }

  public InboxHandler handler(InboxHandler handler, String consumer) {
    ObservationRegistry r = registry.getIfAvailable();
    return r == null || r.isNoop() || handler instanceof ObservedInboxHandler ? handler
        : ObservedInboxHandler.wrap(handler, r, consumer);
  }
}
