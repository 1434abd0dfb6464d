package io.twinbox.spring.it;

import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A fresh PostgreSQL database (with the example's tables) and a fresh topic on the JVM's shared
 * Kafka broker, for one test class. The database is dropped when the JVM exits.
 */
record ItServers(PostgresDatabase db, String bootstrapServers, String topic) {

  static ItServers create() {
    PostgresDatabase db = PostgresDatabase.create();
    JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
    jdbc.execute("CREATE TABLE spring_it_order (id varchar(64) PRIMARY KEY, status varchar(32) NOT NULL)");
    jdbc.execute("CREATE TABLE spring_it_received (message_id uuid PRIMARY KEY, order_id varchar(64) NOT NULL)");
    KafkaBroker broker = KafkaBroker.shared();
    String topic = "spring-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    broker.createTopic(topic, 3);
    return new ItServers(db, broker.bootstrapServers(), topic);
  }

  void register(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", db::jdbcUrl);
    registry.add("spring.datasource.username", db::user);
    registry.add("spring.datasource.password", db::password);
    registry.add("twinbox.kafka.bootstrap-servers", this::bootstrapServers);
    registry.add("twinbox.kafka.topic", this::topic);
    registry.add("twinbox.kafka.consumer.topics", this::topic);
  }
}
