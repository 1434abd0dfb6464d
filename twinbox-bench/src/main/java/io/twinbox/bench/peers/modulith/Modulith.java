package io.twinbox.bench.peers.modulith;

import io.twinbox.bench.peers.AutoConfigurations;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * How the harness runs Spring Modulith's event publication registry (JDBC) with Kafka
 * externalization ({@code spring-modulith-events-jdbc}, {@code -events-kafka}, {@code -events-jackson}
 * 2.0.3 on Spring Boot 4.0.9): a programmatic {@link SpringApplication} of {@link ModulithApp} whose
 * {@code DataSource} bean is the harness's pool on the bench's database and whose
 * {@code spring.kafka.bootstrap-servers} is the bench's broker. Everything else is configured by
 * properties, as Modulith's reference documentation describes them.
 *
 * <p>Two settings: <b>modulith</b> — the defaults (completion mode {@code update}, which keeps
 * completed rows; Boot's {@code applicationTaskExecutor}, 8 threads, on which the
 * {@code @ApplicationModuleListener} externalizer runs); <b>modulith-tuned</b> — completion mode
 * {@code delete} (the documentation's choice to keep the table small) and a
 * {@code threads}-thread task executor.
 */
public final class Modulith {
  private Modulith() {}

  /** The registry's table (its default name). */
  public static final String TABLE = "event_publication";

  /** A settings variant. */
  public record Setup(String name, String completionMode, int threads) {
    public static Setup defaults() {
      return new Setup("modulith", "update", 8);
    }

    public static Setup tuned(int threads) {
      return new Setup("modulith-tuned", "delete", threads);
    }

    boolean isDefault() {
      return name.equals("modulith");
    }
  }

  /** Starts the application on {@code dataSource} (the caller's pool, closed by the caller). */
  public static ConfigurableApplicationContext start(Setup setup, DataSource dataSource, String bootstrapServers) {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("spring.main.banner-mode", "off");
    props.put("spring.kafka.bootstrap-servers", bootstrapServers);
    props.put("spring.modulith.events.jdbc.schema-initialization.enabled", "true");
    // namastack-outbox shares the bench's classpath: not in this application.
    props.put("spring.autoconfigure.exclude", AutoConfigurations.startingWith("io.namastack."));
    if (!setup.isDefault()) {
      props.put("spring.modulith.events.completion-mode", setup.completionMode());
      props.put("spring.task.execution.pool.core-size", String.valueOf(setup.threads()));
      props.put("spring.task.execution.pool.max-size", String.valueOf(setup.threads()));
    }
    SpringApplication app = new SpringApplication(ModulithApp.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    app.setDefaultProperties(props);
    // Wrapped, so that closing the application never closes the harness's pool.
    DataSource wrapped = new DelegatingDataSource(dataSource);
    app.addInitializers(ctx -> ctx.getBeanFactory().registerSingleton("dataSource", wrapped));
    return app.run();
  }

  public static void clear(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      st.execute("TRUNCATE " + TABLE);
    }
  }

  /** Publications not yet completed. */
  public static long pending(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM " + TABLE + " WHERE completion_date IS NULL")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
