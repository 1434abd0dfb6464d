package io.twinbox.bench.peers.namastack;

import io.namastack.outbox.OutboxProperties;
import io.twinbox.bench.peers.AutoConfigurations;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * How the harness runs namastack-outbox ({@code io.namastack:namastack-outbox-starter-jdbc} 1.6.0 on
 * Spring Boot 4.0.9): a programmatic {@link SpringApplication} of {@link NamastackApp} whose
 * {@code DataSource} bean is the harness's pool on the bench's database and whose
 * {@code spring.kafka.bootstrap-servers} is the bench's broker. Everything else is configured by
 * namastack's documented {@code namastack.outbox.*} properties.
 *
 * <p>Two settings: <b>namastack</b> — its defaults (fixed polling every 2 s, 10 record keys per poll
 * cycle, the processing executor's 4 core / 8 max threads, completed records kept); <b>namastack-tuned</b>
 * — a shorter poll interval ({@code polling.fixed.interval}), more record keys per cycle
 * ({@code polling.batch-size}), a {@code threads}-thread executor (core = max) and
 * {@code processing.delete-completed-records=true}.
 */
public final class Namastack {
  private Namastack() {}

  /** namastack's record table (its default name). */
  public static final String TABLE = "outbox_record";

  /** A settings variant; {@code null} fields keep namastack's default. */
  public record Setup(String name, Duration pollInterval, Integer batchSize, Integer threads, boolean deleteCompleted) {
    public static Setup defaults() {
      return new Setup("namastack", null, null, null, false);
    }

    public static Setup tuned(int threads) {
      return new Setup("namastack-tuned", Duration.ofMillis(100), 100, threads, true);
    }

    /**
     * An application whose poller does not run within the hour: for the write scenario (no relay
     * runs there for any contender) and for storing the relay's pending records.
     */
    public static Setup idle() {
      return new Setup("namastack-idle", Duration.ofHours(1), null, null, false);
    }

    /** Poll interval in effect. */
    public Duration effectivePollInterval() {
      return pollInterval == null ? Duration.ofSeconds(2) : pollInterval;
    }

    /** Record keys per poll cycle in effect. */
    public int effectiveBatchSize() {
      return batchSize == null ? 10 : batchSize;
    }

    /** Executor threads that actually run: the core size (its queue is unbounded, so it never grows to max). */
    public int effectiveThreads() {
      return threads == null ? 4 : threads;
    }

    public String describe() {
      return "fixed polling every " + effectivePollInterval().toMillis() + " ms, " + effectiveBatchSize()
          + " record keys per cycle, " + (threads == null ? "4 core / 8 max" : threads + "") + " executor threads, "
          + (deleteCompleted ? "completed records deleted" : "completed records kept");
    }
  }

  /** Starts the application on {@code dataSource} (the caller's pool, closed by the caller). */
  public static ConfigurableApplicationContext start(Setup setup, DataSource dataSource, String bootstrapServers) {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("spring.main.banner-mode", "off");
    props.put("spring.kafka.bootstrap-servers", bootstrapServers);
    // Spring Modulith shares the bench's classpath: not in this application.
    props.put("spring.autoconfigure.exclude", AutoConfigurations.startingWith("org.springframework.modulith."));
    if (setup.pollInterval() != null) {
      props.put("namastack.outbox.polling.trigger", "fixed");
      props.put("namastack.outbox.polling.fixed.interval", setup.pollInterval().toMillis() + "ms");
    }
    if (setup.batchSize() != null) {
      props.put("namastack.outbox.polling.batch-size", String.valueOf(setup.batchSize()));
    }
    if (setup.threads() != null) {
      props.put("namastack.outbox.processing.executor-core-pool-size", String.valueOf(setup.threads()));
      props.put("namastack.outbox.processing.executor-max-pool-size", String.valueOf(setup.threads()));
    }
    if (setup.deleteCompleted()) {
      props.put("namastack.outbox.processing.delete-completed-records", "true");
    }
    SpringApplication app = new SpringApplication(NamastackApp.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    app.setDefaultProperties(props);
    // Wrapped, so that closing the application never closes the harness's pool.
    DataSource wrapped = new DelegatingDataSource(dataSource);
    app.addInitializers(ctx -> ctx.getBeanFactory().registerSingleton("dataSource", wrapped));
    return app.run();
  }

  /**
   * Empties namastack's tables: records, and the instance and partition registry, so that the next
   * application is the only instance and takes all 256 partitions at start (as the first instance
   * of a deployment does).
   */
  public static void clear(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      st.execute("TRUNCATE " + TABLE + ", outbox_instance, outbox_partition");
    }
  }

  /** Forgets the instance and partition registry (records stay): the next application starts as the only instance. */
  public static void resetInstances(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      st.execute("TRUNCATE outbox_instance, outbox_partition");
    }
  }

  /**
   * The settings the running application actually uses, read from namastack's own
   * {@code OutboxProperties} bean and its processing executor (its legacy {@code poll-interval} and
   * {@code batch-size}, when set, win over the {@code polling.*} ones).
   */
  public static String effective(ConfigurableApplicationContext ctx) {
    OutboxProperties p = ctx.getBean(OutboxProperties.class);
    Duration interval = p.getPollInterval() != null ? p.getPollInterval() : p.getPolling().getFixed().getInterval();
    int batch = p.getBatchSize() != null ? p.getBatchSize() : p.getPolling().getBatchSize();
    ThreadPoolTaskExecutor executor = ctx.getBean("outboxTaskExecutor", ThreadPoolTaskExecutor.class);
    return "trigger " + p.getPolling().getTrigger() + ", interval " + interval.toMillis() + " ms, batch " + batch
        + " keys, executor core " + executor.getCorePoolSize() + " / max " + executor.getMaxPoolSize() + " / queue "
        + executor.getQueueCapacity() + ", delete completed " + p.getProcessing().getDeleteCompletedRecords();
  }

  /** Records not yet completed (deleted records count as completed). */
  public static long pending(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM " + TABLE + " WHERE completed_at IS NULL")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
