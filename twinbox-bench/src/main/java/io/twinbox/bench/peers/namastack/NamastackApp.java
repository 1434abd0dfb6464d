package io.twinbox.bench.peers.namastack;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The minimal Spring Boot application the harness starts for namastack-outbox: auto-configuration only
 * (JDBC, transactions, Spring for Apache Kafka, and namastack's JDBC record store, schema
 * initialization, instance registry, partition coordinator, poller and Jackson serializer, all found
 * on the classpath; Spring Modulith's are excluded, see {@link Namastack#start}), no component scan.
 * The one bean of its own is the handler that sends each record to Kafka.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class NamastackApp {

  @Bean
  NamastackKafkaHandler kafkaHandler(KafkaTemplate<Object, Object> kafka) {
    return new NamastackKafkaHandler(kafka);
  }
}
