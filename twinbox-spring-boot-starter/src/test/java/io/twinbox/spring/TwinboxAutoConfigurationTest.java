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
import io.twinbox.nats.NatsPublisher;
import io.twinbox.rabbitmq.RabbitPublisher;
import io.twinbox.spi.Transport;
import io.twinbox.spring.autoconfigure.TwinboxAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxHealthAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxKafkaAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxMetricsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxNatsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRabbitAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRelayAutoConfiguration;
import io.twinbox.spring.kafka.TwinboxKafkaInboxConsumer;
import io.twinbox.spring.nats.TwinboxNatsInboxConsumer;
import io.twinbox.spring.rabbitmq.TwinboxRabbitInboxConsumer;
import io.twinbox.testkit.PostgresDatabase;
import io.twinbox.testing.RecordingTransport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
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
 * database (the store connects at build). No broker is needed: the Kafka, RabbitMQ and NATS
 * clients connect lazily, and a consumer started on an unreachable address (port 9 here) only
 * retries until its context closes.
 */
class TwinboxAutoConfigurationTest {
  private static PostgresDatabase db;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class,
          TwinboxKafkaAutoConfiguration.class, TwinboxRabbitAutoConfiguration.class, TwinboxNatsAutoConfiguration.class,
          TwinboxRelayAutoConfiguration.class,
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
            "twinbox.relay.lease-ttl=5s", "twinbox.relay.node-id=node-a", "twinbox.relay.retry.max-attempts=4",
            "twinbox.relay.retry.initial-delay=2s")
        .run(context -> {
          var config = context.getBean(TwinboxRelay.class).relay().config();
          assertThat(config.retryPolicy().maxAttempts()).isEqualTo(4);
          assertThat(config.retryPolicy().initialDelay()).hasSeconds(2);
          assertThat(config.batchSize()).isEqualTo(42);
          assertThat(config.workers()).isEqualTo(3);
          assertThat(config.source()).isEqualTo("/orders");
          assertThat(config.leaseTtl()).hasSeconds(5);
          assertThat(config.nodeId()).isEqualTo("node-a");
        });
  }

  /** Issue 16: the starter's poll interval defaulted to 500 ms while the builder and the README said 100 ms. */
  @Test
  void relayDefaultsAreTheBuildersDefaults() {
    runner.withBean(Transport.class, RecordingTransport::acking).run(context -> {
      var config = context.getBean(TwinboxRelay.class).relay().config();
      assertThat(config.pollInterval()).isEqualTo(io.twinbox.RelaySettings.POLL_INTERVAL.defaultValue()).hasMillis(100);
      assertThat(config.retryPolicy().maxAttempts()).isEqualTo(io.twinbox.RetryPolicy.ofDefaults().maxAttempts());
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
        {"twinbox.relay.batch-size=0", "twinbox.relay.batch-size", "within [1, 10000]"},
        {"twinbox.relay.workers=65", "twinbox.relay.workers", "within [1, 64]"},
        {"twinbox.relay.lease-ttl=500ms", "twinbox.relay.lease-ttl", ">= 1s"},
        {"twinbox.relay.poll-interval=0s", "twinbox.relay.poll-interval", "> 0"},
        {"twinbox.outbox.max-payload-bytes=0", "twinbox.outbox.max-payload-bytes", ">= 1"},
        {"twinbox.inbox.retention=1d", "twinbox.inbox.retention", "redelivery-horizon"},
        {"twinbox.kafka.topic=no spaces", "twinbox.kafka.topic", "[a-zA-Z0-9._-]"},
        {"twinbox.kafka.consumer.batch-size=5000", "twinbox.kafka.consumer.batch-size", "within [1, 1000]"},
        {"twinbox.rabbitmq.port=0", "twinbox.rabbitmq.port", "within [1, 65535]"},
        {"twinbox.rabbitmq.consumer.batch-size=300", "twinbox.rabbitmq.consumer.batch-size", "prefetch"},
        {"twinbox.rabbitmq.consumer.batch-wait=2s", "twinbox.rabbitmq.consumer.batch-wait", "within [0s, 1s]"},
        {"twinbox.nats.consumer.stream=ORDERS.V1", "twinbox.nats.consumer.stream", "without whitespace"},
        {"twinbox.nats.consumer.ack-wait=2h", "twinbox.nats.consumer.ack-wait", "within [1s, 1h]"},
        {"twinbox.nats.consumer.max-deliver=0", "twinbox.nats.consumer.max-deliver", ">= 1"},
        // Issue 16: the starter had no retry settings; now every relay and consumer setting is a property.
        {"twinbox.relay.retry.max-attempts=0", "twinbox.relay.retry.max-attempts", ">= 1"},
        {"twinbox.kafka.consumer.retry.initial-delay=1m", "twinbox.kafka.consumer.retry.initial-delay",
            "must not exceed twinbox.kafka.consumer.retry.max-delay (5s)"}}) {
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
              .hasSingleBean(InboxMetrics.class).hasSingleBean(io.twinbox.micrometer.ParkedMetrics.class);
          new JdbcTemplate(db.dataSource()).update("DELETE FROM twinbox_outbox");   // other tests leave events
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          context.getBean(OutboxMetrics.class).bindTo(registry);   // Boot's metrics support does this in an app
          assertThat(registry.get("twinbox.outbox.pending").gauge().value()).isZero();
          context.getBean(io.twinbox.micrometer.ParkedMetrics.class).bindTo(registry);
          assertThat(registry.get("twinbox.inbox.parked").tag("consumer", "payments").gauge().value()).isZero();
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

  @Test
  void rabbitPublisherFromPropertiesOnlyWhenTwinboxRabbitmqIsOnTheClasspath() {
    ApplicationContextRunner rabbit = runner.withPropertyValues("twinbox.rabbitmq.host=127.0.0.1",
        "twinbox.rabbitmq.port=9", "twinbox.rabbitmq.username=relay", "twinbox.rabbitmq.password=s3cret-pw",
        "twinbox.rabbitmq.virtual-host=orders", "twinbox.rabbitmq.exchange=events", "twinbox.relay.enabled=false");
    rabbit.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RabbitPublisher.class).doesNotHaveBean(KafkaPublisher.class);
      var config = context.getBean(RabbitPublisher.class).config();
      assertThat(config.host()).isEqualTo("127.0.0.1");
      assertThat(config.port()).isEqualTo(9);
      assertThat(config.username()).isEqualTo("relay");
      assertThat(config.virtualHost()).isEqualTo("orders");
      assertThat(config.router()).isEqualTo("RabbitRouter.fixed(events)");
      assertThat(config.toString()).doesNotContain("s3cret-pw");
      assertThat(context.getBean(TwinboxSettings.class).toString()).doesNotContain("s3cret-pw")
          .contains("password=***");
    });
    runner.withPropertyValues("twinbox.rabbitmq.uri=amqp://relay:s3cret-pw@127.0.0.1:9/%2f").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RabbitPublisher.class);
      var config = context.getBean(RabbitPublisher.class).config();
      assertThat(config.username()).isEqualTo("relay");
      assertThat(config.port()).isEqualTo(9);
      assertThat(config.router()).isEqualTo("RabbitRouter.byAggregateType()");
      assertThat(context.getBean(TwinboxRelay.class).isRunning()).isTrue();   // the relay runs on it
      assertThat(context.getBean(TwinboxSettings.class).toString()).doesNotContain("s3cret-pw")
          .contains("twinbox.rabbitmq.uri=***");
    });
    rabbit.withClassLoader(new FilteredClassLoader(RabbitPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Transport.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(RabbitPublisher.class));   // neither uri nor host
  }

  @Test
  void natsPublisherFromPropertiesOnlyWhenTwinboxNatsIsOnTheClasspath() {
    ApplicationContextRunner nats = runner.withPropertyValues("twinbox.nats.url=nats://relay:s3cret-pw@127.0.0.1:9",
        "twinbox.nats.subject-prefix=shop", "twinbox.relay.enabled=false");
    nats.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(NatsPublisher.class).doesNotHaveBean(KafkaPublisher.class);
      var config = context.getBean(NatsPublisher.class).config();
      assertThat(config.servers()).isEqualTo("nats://***@127.0.0.1:9");
      assertThat(config.router()).isEqualTo("SubjectRouter.byAggregateType(shop)");
      assertThat(config.ownsConnection()).isTrue();
      assertThat(context.getBean(TwinboxSettings.class).toString()).doesNotContain("s3cret-pw")
          .contains("twinbox.nats.url=***");
    });
    nats.withClassLoader(new FilteredClassLoader(NatsPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Transport.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(NatsPublisher.class));   // no url
  }

  @Test
  void anInboxHandlerGetsRabbitConsumersOnePerQueue() {
    ApplicationContextRunner withHandler = runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withPropertyValues("twinbox.rabbitmq.host=127.0.0.1", "twinbox.rabbitmq.port=9", "twinbox.relay.enabled=false",
            "twinbox.inbox.consumer=payment-service", "twinbox.rabbitmq.consumer.queues=payment.order,payment.refund");
    withHandler.withPropertyValues("twinbox.rabbitmq.consumer.enabled=false").run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(Inbox.class).doesNotHaveBean(TwinboxRabbitInboxConsumer.class));
    withHandler.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(TwinboxRabbitInboxConsumer.class)
          .doesNotHaveBean(TwinboxKafkaInboxConsumer.class).doesNotHaveBean(TwinboxNatsInboxConsumer.class);
      TwinboxRabbitInboxConsumer consumers = context.getBean(TwinboxRabbitInboxConsumer.class);
      assertThat(consumers.isRunning()).isTrue();
      assertThat(consumers.consumers()).hasSize(2).allSatisfy(c -> assertThat(c.isRunning()).isTrue());
      context.stop();
      assertThat(consumers.isRunning()).isFalse();
      assertThat(consumers.consumers()).isEmpty();
    });
    withHandler.withClassLoader(new FilteredClassLoader(RabbitPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Inbox.class)
            .doesNotHaveBean(TwinboxRabbitInboxConsumer.class));
    withHandler.withPropertyValues("twinbox.rabbitmq.consumer.queues=").run(context ->
        assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("twinbox.rabbitmq.consumer.queues"));
  }

  @Test
  void anInboxHandlerGetsANatsConsumer() {
    ApplicationContextRunner withHandler = runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withPropertyValues("twinbox.nats.url=nats://127.0.0.1:9", "twinbox.relay.enabled=false",
            "twinbox.inbox.consumer=payment-service", "twinbox.nats.consumer.stream=ORDER");
    withHandler.withPropertyValues("twinbox.nats.consumer.enabled=false").run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(Inbox.class).doesNotHaveBean(TwinboxNatsInboxConsumer.class));
    withHandler.withPropertyValues("twinbox.nats.consumer.filter-subject=twinbox.order.>").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(TwinboxNatsInboxConsumer.class)
          .doesNotHaveBean(TwinboxKafkaInboxConsumer.class).doesNotHaveBean(TwinboxRabbitInboxConsumer.class);
      TwinboxNatsInboxConsumer consumer = context.getBean(TwinboxNatsInboxConsumer.class);
      assertThat(consumer.isRunning()).isTrue();
      assertThat(consumer.consumer().isRunning()).isTrue();
    });
    withHandler.withClassLoader(new FilteredClassLoader(NatsPublisher.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Inbox.class)
            .doesNotHaveBean(TwinboxNatsInboxConsumer.class));
    runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withPropertyValues("twinbox.nats.url=nats://127.0.0.1:9", "twinbox.inbox.consumer=payments")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("twinbox.nats.consumer.stream"));
  }

  @Test
  void theApplicationsBeansReplaceTheRabbitAndNatsOnes() {
    RecordingTransport transport = RecordingTransport.acking();
    runner.withBean(Transport.class, () -> transport)
        .withPropertyValues("twinbox.rabbitmq.host=127.0.0.1", "twinbox.rabbitmq.port=9")
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(RabbitPublisher.class);
          assertThat(context.getBean(Transport.class)).isSameAs(transport);
        });
    runner.withBean(Transport.class, () -> transport).withPropertyValues("twinbox.nats.url=nats://127.0.0.1:9")
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(NatsPublisher.class);
          assertThat(context.getBean(Transport.class)).isSameAs(transport);
        });
    TwinboxRabbitInboxConsumer rabbit = new TwinboxRabbitInboxConsumer(List::of);
    TwinboxNatsInboxConsumer nats = new TwinboxNatsInboxConsumer(() -> {
      throw new AssertionError("not started in this test");
    }) {
      @Override
      public boolean isAutoStartup() {
        return false;
      }
    };
    runner.withBean(InboxHandler.class, () -> (connection, message) -> { })
        .withBean(TwinboxRabbitInboxConsumer.class, () -> rabbit).withBean(TwinboxNatsInboxConsumer.class, () -> nats)
        .withPropertyValues("twinbox.rabbitmq.host=127.0.0.1", "twinbox.rabbitmq.port=9",
            "twinbox.nats.url=nats://127.0.0.1:9", "twinbox.relay.transport=nats", "twinbox.relay.enabled=false",
            "twinbox.inbox.consumer=payments")   // no queues, no stream: ours would fail, theirs are used
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(TwinboxRabbitInboxConsumer.class)).isSameAs(rabbit);
          assertThat(context.getBean(TwinboxNatsInboxConsumer.class)).isSameAs(nats);
        });
  }

  @Test
  void withSeveralBrokersTheRelaysTransportMustBeChosen() {
    ApplicationContextRunner all = runner.withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9",
        "twinbox.rabbitmq.uri=amqp://relay:s3cret-pw@127.0.0.1:9", "twinbox.nats.url=nats://relay:s3cret-pw@127.0.0.1:9");
    all.run(context -> {
      assertThat(context).hasFailed().getFailure().hasStackTraceContaining("relay.transport")
          .hasStackTraceContaining("must be set to kafka, rabbitmq or nats");
      assertThat(stackTrace(context.getStartupFailure())).doesNotContain("s3cret-pw");
    });
    for (String[] choice : new String[][] {{"kafka", "KafkaPublisher"}, {"RabbitMQ", "RabbitPublisher"},
        {"rabbit-mq", "RabbitPublisher"}, {"nats", "NatsPublisher"}}) {   // bound leniently, like any enum
      all.withPropertyValues("twinbox.relay.transport=" + choice[0]).run(context -> {
        assertThat(context).hasNotFailed().hasSingleBean(Transport.class).hasSingleBean(TwinboxRelay.class);
        assertThat(context.getBean(Transport.class).getClass().getSimpleName()).isEqualTo(choice[1]);
      });
    }
    all.withPropertyValues("twinbox.relay.transport=redis").run(context ->
        assertThat(context).hasFailed().getFailure().hasStackTraceContaining("twinbox.relay.transport"));
    runner.withPropertyValues("twinbox.kafka.bootstrap-servers=127.0.0.1:9", "twinbox.relay.transport=nats")
        .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("relay.transport")
            .hasStackTraceContaining("twinbox.nats.url is not set"));
  }

  @Test
  void secretsAreNotShownInBindingErrors() {
    runner.withPropertyValues("twinbox.rabbitmq.uri=amqp://relay:s3cret-pw@127.0.0.1:9", "twinbox.rabbitmq.host=h",
        "twinbox.rabbitmq.password=s3cret-pw", "twinbox.rabbitmq.port=0").run(context -> {
          assertThat(context).hasFailed().getFailure().hasStackTraceContaining("rabbitmq.host")
              .hasStackTraceContaining("not both").hasStackTraceContaining("rabbitmq.port");
          assertThat(stackTrace(context.getStartupFailure())).doesNotContain("s3cret-pw");
        });
  }

  private static String stackTrace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }
}
