package io.twinbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.NoActiveTransactionException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.SchemaNotMigratedException;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.micrometer.InboxMetrics;
import io.twinbox.micrometer.OutboxMetrics;
import io.twinbox.micrometer.RelayMetrics;
import io.twinbox.spi.Transport;
import io.twinbox.spring.autoconfigure.TwinboxAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxHealthAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxKafkaAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxMetricsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRelayAutoConfiguration;
import io.twinbox.spring.kafka.TwinboxKafkaInboxConsumer;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testkit.RecordingTransport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The wiring: which beans exist for which properties and classpath, that the application's beans
 * replace ours, and that bad values stop the start with the property's name. On a real PostgreSQL
 * database (the store connects at build). No broker is needed: the Kafka clients connect lazily,
 * and a consumer started on an unreachable address only retries until its context closes.
 */
class TwinboxAutoConfigurationTest {
  private static PostgresDatabase db;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class,
          TwinboxKafkaAutoConfiguration.class, TwinboxRelayAutoConfiguration.class,
          TwinboxHealthAutoConfiguration.class))
      .withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource()));   // the context may not close the pool

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void theStoreAndTheOutboxByDefaultButNoRelayWithoutATransport() {
    runner.withClassLoader(new FilteredClassLoader(KafkaPublisher.class)).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(JdbcStore.class).hasSingleBean(Outbox.class)
          .hasSingleBean(TransactionalOutbox.class).doesNotHaveBean(TwinboxRelay.class)
          .doesNotHaveBean(Inbox.class).doesNotHaveBean(Transport.class);
      context.getBean(JdbcStore.class).verifySchema();   // migrated by default
    });
  }

  @Test
  void theRelayRunsOnTheApplicationsTransportUnlessTurnedOff() {
    RecordingTransport transport = RecordingTransport.acking();
    runner.withBean(Transport.class, () -> transport).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(TwinboxRelay.class);
      TwinboxRelay relay = context.getBean(TwinboxRelay.class);
      assertThat(relay.isRunning()).isTrue();
      assertThat(relay.relay().config().source()).isEqualTo("/twinbox");
    });
    runner.withBean(Transport.class, () -> transport).withPropertyValues("twinbox.relay.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TwinboxRelay.class));
  }

  @Test
  void relaySettingsComeFromProperties() {
    runner.withBean(Transport.class, RecordingTransport::acking)
        .withPropertyValues("twinbox.relay.batch-size=42", "twinbox.relay.workers=3", "twinbox.relay.source=/orders",
            "twinbox.relay.lease-ttl=5s", "twinbox.relay.node-id=node-a")
        .run(context -> {
          var config = context.getBean(TwinboxRelay.class).relay().config();
          assertThat(config.batchSize()).isEqualTo(42);
          assertThat(config.workers()).isEqualTo(3);
          assertThat(config.source()).isEqualTo("/orders");
          assertThat(config.leaseTtl()).hasSeconds(5);
          assertThat(config.nodeId()).isEqualTo("node-a");
        });
  }

  @Test
  void outboxDefaultsAreTheCoreBuildersDefaults() {
    runner.run(context -> assertThat(context.getBean(Outbox.class).config().maxPayloadBytes())
        .isEqualTo(Outbox.Builder.DEFAULT_MAX_PAYLOAD_BYTES));
  }

  @Test
  void noMigrationWithMigrateFalse() {
    try (PostgresDatabase empty = PostgresDatabase.create()) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class))
          .withBean(DataSource.class, () -> new DelegatingDataSource(empty.dataSource()))
          .withPropertyValues("twinbox.migrate=false")
          .run(context -> assertThatThrownBy(() -> context.getBean(JdbcStore.class).verifySchema())
              .isInstanceOf(SchemaNotMigratedException.class));
    }
  }

  @Test
  void offEntirelyWithTwinboxEnabledFalse() {
    runner.withPropertyValues("twinbox.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(JdbcStore.class).doesNotHaveBean(Outbox.class)
            .doesNotHaveBean(TwinboxRelay.class));
  }

  @Test
  void kafkaPublisherFromPropertiesOnlyWhenTwinboxKafkaIsOnTheClasspath() {
    ApplicationContextRunner kafka = runner.withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9",
        "twinbox.kafka.topic=events", "twinbox.kafka.producer.linger.ms=7", "twinbox.relay.enabled=false");
    kafka.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(KafkaPublisher.class);
      KafkaPublisher publisher = context.getBean(KafkaPublisher.class);
      assertThat(publisher.config().bootstrapServers()).isEqualTo("127.0.0.1:9");
      assertThat(publisher.config().lingerMs()).isEqualTo(7);
      assertThat(publisher.config().topicRouter()).contains("events");
    });
    kafka.withClassLoader(new FilteredClassLoader(KafkaPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Transport.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(KafkaPublisher.class));   // no bootstrap servers
  }

  @Test
  void anInboxHandlerGetsAnInboxAndAKafkaConsumer() {
    ApplicationContextRunner withHandler = runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9", "twinbox.relay.enabled=false",
            "twinbox.inbox.consumer=payment-service", "twinbox.kafka.consumer.topics=order",
            "twinbox.kafka.consumer.enabled=true");
    withHandler.withPropertyValues("twinbox.kafka.consumer.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Inbox.class).doesNotHaveBean(TwinboxKafkaInboxConsumer.class);
      assertThat(context.getBean(Inbox.class).consumer()).isEqualTo("payment-service");
    });
    withHandler.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(TwinboxKafkaInboxConsumer.class);
      assertThat(context.getBean(TwinboxKafkaInboxConsumer.class).isRunning()).isTrue();
    });
    withHandler.withClassLoader(new FilteredClassLoader(KafkaPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Inbox.class)
            .doesNotHaveBean(TwinboxKafkaInboxConsumer.class));
  }

  @Test
  void missingSettingsOfTheInboxAreNamed() {
    ApplicationContextRunner withHandler = runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9", "twinbox.relay.enabled=false");
    withHandler.withPropertyValues("twinbox.inbox.consumer=payments").run(context ->
        assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("twinbox.kafka.consumer.topics"));
    withHandler.run(context ->   // neither twinbox.inbox.consumer nor spring.application.name
        assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("twinbox.inbox.consumer"));
    withHandler.withPropertyValues("spring.application.name=payments", "twinbox.kafka.consumer.topics=order")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Inbox.class).consumer()).isEqualTo("payments");
            });
  }

  @Test
  void theApplicationsBeansReplaceOurs() {
    Outbox mine = Outbox.builder(JdbcStore.builder(db.dataSource()).build()).maxPayloadBytes(10).build();
    runner.withBean(Outbox.class, () -> mine).run(context -> {
      assertThat(context).hasNotFailed().getBean(Outbox.class).isSameAs(mine);
      assertThat(context.getBean(TransactionalOutbox.class).outbox()).isSameAs(mine);
    });
    TwinboxRelay relay = new TwinboxRelay(() -> {
      throw new AssertionError("not started in this test");
    }) {
      @Override
      public boolean isAutoStartup() {
        return false;
      }
    };
    runner.withBean(Transport.class, RecordingTransport::acking).withBean(TwinboxRelay.class, () -> relay)
        .run(context -> assertThat(context).hasNotFailed().getBean(TwinboxRelay.class).isSameAs(relay));
    RecordingTransport transport = RecordingTransport.acking();   // replaces the Kafka publisher
    runner.withBean(Transport.class, () -> transport).withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9")
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(KafkaPublisher.class);
          assertThat(context.getBean(Transport.class)).isSameAs(transport);
          assertThat(context.getBean(TwinboxRelay.class).isRunning()).isTrue();
        });
  }

  @Test
  void badValuesStopTheStartNamingTheProperty() {
    for (String[] bad : new String[][] {
        {"twinbox.relay.batch-size=0", "relay.batchSize", "within [1, 10000]"},
        {"twinbox.relay.workers=65", "relay.workers", "within [1, 64]"},
        {"twinbox.relay.lease-ttl=500ms", "relay.leaseTtl", ">= PT1S"},
        {"twinbox.relay.poll-interval=0s", "relay.pollInterval", "> 0"},
        {"twinbox.outbox.max-payload-bytes=0", "outbox.maxPayloadBytes", ">= 1"},
        {"twinbox.inbox.retention=1d", "inbox.retention", "redelivery-horizon"},
        {"twinbox.kafka.topic=no spaces", "kafka.topic", "[a-zA-Z0-9._-]"},
        {"twinbox.kafka.consumer.batch-size=5000", "kafka.consumer.batchSize", "within [1, 1000]"}}) {
      runner.withPropertyValues(bad[0]).run(context -> assertThat(context).hasFailed().getFailure()
          .hasStackTraceContaining("twinbox").hasStackTraceContaining(bad[1]).hasStackTraceContaining(bad[2]));
    }
    runner.withPropertyValues("twinbox.relay.batch-size=many").run(context ->
        assertThat(context).hasFailed().getFailure().hasStackTraceContaining("twinbox.relay.batch-size"));
  }

  @Test
  void metersWhenAMeterRegistryExists() {
    runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withBean(InboxHandler.class, () -> (c, m) -> { })
        .withPropertyValues("twinbox.inbox.consumer=payments").run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(OutboxMetrics.class).hasSingleBean(RelayMetrics.class)
              .hasSingleBean(InboxMetrics.class);
          new JdbcTemplate(db.dataSource()).update("DELETE FROM twinbox_outbox");   // other tests leave events
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          context.getBean(OutboxMetrics.class).bindTo(registry);   // Boot's metrics support does this in an app
          assertThat(registry.get("twinbox.outbox.pending").gauge().value()).isZero();
        });
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxMetrics.class));
    runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelayMetrics.class));
  }

  @Test
  void healthIndicatorUnlessHealthIsAbsentOrTurnedOff() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasBean("twinboxHealthIndicator");
      new JdbcTemplate(db.dataSource()).update("DELETE FROM twinbox_outbox");   // other tests leave events
      HealthIndicator indicator = context.getBean("twinboxHealthIndicator", HealthIndicator.class);
      var health = indicator.health(true);
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("pending", 0L);
      // An event pending while no relay runs (no transport here): DOWN, with the reason.
      DataSource ds = context.getBean(DataSource.class);
      new TransactionTemplate(new DataSourceTransactionManager(ds)).executeWithoutResult(status ->
          context.getBean(TransactionalOutbox.class).write(
              OutboxEvent.builder("Pinged", 1).aggregate("Ping", "p-2").payload("{}").build()));
      health = indicator.health(true);
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsEntry("pending", 1L);
      assertThat(health.getDetails().get("reasons").toString()).contains("no live relay holds a lease");
    });
    runner.withPropertyValues("management.health.twinbox.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TwinboxHealthIndicator.class));
    runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("twinboxHealthIndicator"));
  }

  @Test
  void transactionalOutboxRefusesToWriteOutsideATransactionAndWritesInOne() {
    runner.run(context -> {
      TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
      OutboxEvent event = OutboxEvent.builder("Pinged", 1).aggregate("Ping", "p-1").payload("{}").build();
      assertThatThrownBy(() -> outbox.write(event)).isInstanceOf(NoActiveTransactionException.class)
          .hasMessageContaining("@Transactional");
      // A transaction on another DataSource: the outbox's connection would auto-commit alone; refused.
      TransactionTemplate other = new TransactionTemplate(new DataSourceTransactionManager(db.dataSource()));
      assertThatThrownBy(() -> other.executeWithoutResult(status -> outbox.write(event)))
          .isInstanceOf(NoActiveTransactionException.class);
      TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(context.getBean(DataSource.class)));
      java.util.UUID id = tx.execute(status -> outbox.write(event));
      assertThat(id).isNotNull();
      assertThat(new JdbcTemplate(db.dataSource()).queryForObject(
          "SELECT count(*) FROM twinbox_outbox WHERE id = ?", Long.class, id)).isEqualTo(1L);
    });
  }
}
