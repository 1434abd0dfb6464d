package io.twinbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.twinbox.Inbox;
import io.twinbox.InboxHandler;
import io.twinbox.InboxMessage;
import io.twinbox.InboxRetentionTooShortException;
import io.twinbox.Outbox;
import io.twinbox.OutboxEvent;
import io.twinbox.Retention;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.micrometer.RetentionMetrics;
import io.twinbox.micrometer.TwinboxMetricNames;
import io.twinbox.spi.ExclusiveLock;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import io.twinbox.spring.autoconfigure.TwinboxAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxMetricsAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRelayAutoConfiguration;
import io.twinbox.spring.autoconfigure.TwinboxRetentionAutoConfiguration;
import io.twinbox.testing.RecordingTransport;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Issue 18, acceptance 2 and 3 in a Spring Boot application: with {@code
 * twinbox.retention.enabled=true} and a 1-second age, the auto-configured retention deletes
 * PUBLISHED rows and inbox records in batches while the application writes and its relay runs,
 * keeps FAILED rows and parked messages, counts its progress in Micrometer and skips its rounds
 * while another instance holds the lock; the inbox's own {@code twinbox.inbox.retention} is the
 * inbox age unless {@code twinbox.retention.inbox-age} is given; a too-short one stops the start.
 */
class RetentionStarterTest {
  private static PostgresDatabase db;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class,
          TwinboxRelayAutoConfiguration.class, TwinboxRetentionAutoConfiguration.class))
      .withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource()))
      .withBean(InboxHandler.class, () -> (c, m) -> { })
      .withPropertyValues("twinbox.inbox.consumer=billing");

  @BeforeAll
  static void database() {
    db = PostgresDatabase.create();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  static InboxMessage message(String id) {
    return new InboxMessage(id, "T", 1, null, null, null, 0, "{}", Map.of(), null, null, null, null, null);
  }

  @Test
  void retentionIsOffByDefault() {
    runner.withBean(Transport.class, RecordingTransport::acking).run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(TwinboxRetention.class).doesNotHaveBean(RetentionMetrics.class));
  }

  @Test
  void theApplicationsRetentionDeletesInBatchesWhileItWritesAndRelays() {
    RecordingTransport transport = RecordingTransport.acking()
        .failWhen(m -> "poison".equals(m.aggregateId()), PublishOutcome.rejected("refused for the test"));
    runner.withBean(Transport.class, () -> transport).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("twinbox.relay.completion-mode=MARK", "twinbox.relay.poll-interval=100ms",
            "twinbox.retention.enabled=true", "twinbox.retention.published-age=1s", "twinbox.retention.batch-size=30",
            "twinbox.retention.pause=5ms", "twinbox.retention.period=300ms",
            // the inbox's own window is the inbox age here
            "twinbox.inbox.retention=1s", "twinbox.inbox.redelivery-horizon=1s")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(TwinboxRetention.class);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          context.getBean(RetentionMetrics.class).bindTo(registry); // Boot's metrics support does this in an app
          JdbcTemplate sql = new JdbcTemplate(db.dataSource());
          Outbox outbox = context.getBean(Outbox.class);
          Inbox inbox = context.getBean(Inbox.class);
          try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "poison").payload("{}").build());
            JdbcStore store = context.getBean(JdbcStore.class);
            io.twinbox.jdbc.JdbcInboxStore.of(store).park(c, "billing", message("parked-1"), "0".repeat(64),
                "handler kept failing", 5);
            c.commit();
          }
          AtomicBoolean writing = new AtomicBoolean(true);
          AtomicInteger written = new AtomicInteger();
          List<Throwable> errors = new CopyOnWriteArrayList<>();
          Thread app = new Thread(() -> {
            try (Connection c = db.dataSource().getConnection()) {
              c.setAutoCommit(false);
              for (int i = 0; writing.get(); i++) {
                for (int j = 0; j < 20; j++) {
                  outbox.write(c, OutboxEvent.builder("T", 1).aggregate("Order", "o-" + j % 5).payload("{}").build());
                  inbox.process(c, message("m-" + i + "-" + j), (conn, m) -> { });
                }
                c.commit();
                written.addAndGet(20);
                Thread.sleep(10);
              }
            } catch (Throwable e) {
              errors.add(e);
            }
          });
          app.start();
          await().atMost(Duration.ofSeconds(60)).until(() ->
              deleted(registry, "published.events") > 300 && deleted(registry, "inbox.records") > 300);

          // Another instance holds the lock: this one's rounds are skipped.
          JdbcStore other = JdbcStore.builder(db.dataSource()).build();
          ExclusiveLock.Held[] held = new ExclusiveLock.Held[1];
          await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
              .until(() -> other.tryLock(Retention.LOCK_NAME).map(h -> held[0] = h).isPresent());
          try {
            double skipped = rounds(registry, "skipped");
            double deletedBefore = deleted(registry, "published.events");
            await().atMost(Duration.ofSeconds(20)).until(() -> rounds(registry, "skipped") >= skipped + 3);
            assertThat(deleted(registry, "published.events")).isEqualTo(deletedBefore);
          } finally {
            held[0].close();
          }
          writing.set(false);
          app.join();
          assertThat(errors).isEmpty();
          await().atMost(Duration.ofSeconds(60)).until(() ->
              sql.queryForObject("SELECT count(*) FROM twinbox_outbox WHERE status <> 'FAILED'", Long.class) == 0
                  && sql.queryForObject("SELECT count(*) FROM twinbox_inbox WHERE message_id LIKE 'm-%'", Long.class) == 0);
          assertThat(deleted(registry, "published.events")).isEqualTo(written.get());
          assertThat(sql.queryForObject("SELECT count(*) FROM twinbox_outbox WHERE status = 'FAILED'", Long.class))
              .as("FAILED stays").isEqualTo(1);
          assertThat(sql.queryForObject("SELECT count(*) FROM twinbox_inbox_parked", Long.class))
              .as("the parked message stays").isEqualTo(1);
          assertThat(registry.get(TwinboxMetricNames.RETENTION_LAST_ROUND_DURATION).timeGauge()).isNotNull();
        });
  }

  @Test
  void aRetentionInboxAgeBelowTheHorizonStopsTheStart() {
    runner.withBean(Transport.class, RecordingTransport::acking)
        .withPropertyValues("twinbox.retention.enabled=true", "twinbox.retention.inbox-age=2d")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("twinbox.retention.inbox-age (2d) must be at least"
                + " twinbox.retention.redelivery-horizon (8d)").hasStackTraceContaining("processed twice"));
    // The inbox's horizon counts too: an explicit inbox age below it is refused by the builder, typed.
    runner.withBean(Transport.class, RecordingTransport::acking)
        .withPropertyValues("twinbox.retention.enabled=true", "twinbox.retention.inbox-age=9d",
            "twinbox.inbox.redelivery-horizon=10d", "twinbox.inbox.retention=10d")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasRootCauseInstanceOf(InboxRetentionTooShortException.class)
            .hasStackTraceContaining("inboxAge (9d) must be at least redeliveryHorizon (10d)"));
  }

  private static double deleted(MeterRegistry registry, String kind) {
    return registry.get(TwinboxMetricNames.RETENTION_DELETED).tag("kind", kind).counter().count();
  }

  private static double rounds(MeterRegistry registry, String outcome) {
    return registry.get(TwinboxMetricNames.RETENTION_ROUNDS).tag("outcome", outcome).counter().count();
  }
}
