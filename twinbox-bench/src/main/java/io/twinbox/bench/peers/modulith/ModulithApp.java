package io.twinbox.bench.peers.modulith;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;

/**
 * The minimal Spring Boot application the harness starts for Spring Modulith: auto-configuration
 * only (JDBC, transactions, task execution, Spring for Apache Kafka, and Modulith's event
 * publication registry, JDBC repository and Kafka externalizer, all found on the classpath), no
 * component scan. The one bean of its own is the externalization routing, in the documented
 * programmatic form ({@code EventExternalizationConfiguration.externalizing()}), because the topic
 * is chosen per measurement; it is equivalent to {@code @Externalized("topic::#{aggregateId()}")}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ModulithApp {

  /** Externalizes {@link OrderPlaced} to its topic, keyed by aggregate, with the event id as {@code ce_id} header. */
  @Bean
  EventExternalizationConfiguration externalization() {
    return EventExternalizationConfiguration.externalizing()
        .select(OrderPlaced.class::isInstance)
        .route(OrderPlaced.class, e -> RoutingTarget.forTarget(e.topic()).andKey(e.aggregateId()))
        .headers(OrderPlaced.class, e -> Map.of("ce_id", e.id().getBytes(StandardCharsets.UTF_8)))
        .build();
  }
}
