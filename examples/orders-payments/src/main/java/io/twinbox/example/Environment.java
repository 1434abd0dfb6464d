package io.twinbox.example;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.testkit.KafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The servers a demo run uses: one database per service and a Kafka broker with the two topics.
 * By default everything is started here and thrown away at the end — an embedded PostgreSQL
 * (databases {@code orders} and {@code payments}) and a real Kafka broker in a child JVM (topics
 * {@code orders} and {@code payments}). Given a JDBC URL, fresh databases {@code
 * twinbox_demo_<run>_orders}/{@code _payments} are created on that server and dropped again; given
 * bootstrap servers, topics and groups get a per-run suffix so runs never meet.
 *
 * <p>{@link #close()} releases everything in reverse order; no process outlives it. Not thread-safe.
 */
public final class Environment implements AutoCloseable {
  /** Connections per service pool: writers, relay, consumers and progress queries. */
  private static final int POOL_SIZE = 12;

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private DataSource orders;
  private DataSource payments;
  private Topics topics;
  private String description = "";

  private Environment() {}

  /** An environment on data sources and topics someone else owns (tests); closing it closes nothing. */
  public static Environment of(DataSource orders, DataSource payments, Topics topics, String description) {
    Environment env = new Environment();
    env.orders = orders;
    env.payments = payments;
    env.topics = topics;
    env.description = description;
    return env;
  }

  /**
   * Starts or connects to the servers.
   *
   * @param jdbcUrl a database on an existing PostgreSQL server to connect to as a user allowed to
   *     create databases, or {@code null} for an embedded server
   * @param bootstrapServers an existing Kafka cluster, or {@code null} for a broker of our own
   * @param keepDatabases leave the databases on an existing server in place after the run
   */
  public static Environment start(String jdbcUrl, String user, String password, String bootstrapServers,
      boolean keepDatabases) throws SQLException, IOException {
    Environment env = new Environment();
    try {
      String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
      if (jdbcUrl == null) {
        env.startEmbeddedPostgres();
      } else {
        env.createDatabases(jdbcUrl, user, password, "twinbox_demo_" + run, keepDatabases);
      }
      if (bootstrapServers == null) {
        env.startBroker();
      } else {
        env.topics = new Topics(bootstrapServers, "orders-" + run, "payments-" + run, "-" + run);
        createTopics(bootstrapServers, List.of(env.topics.orders(), env.topics.payments()));
        env.description += "; Kafka at " + bootstrapServers + " (topics " + env.topics.orders() + ", "
            + env.topics.payments() + ")";
      }
      return env;
    } catch (SQLException | IOException | RuntimeException e) {
      env.close();
      throw e;
    }
  }

  public DataSource orders() {
    return orders;
  }

  public DataSource payments() {
    return payments;
  }

  public Topics topics() {
    return topics;
  }

  /** Where the servers are, for the demo's header. */
  public String description() {
    return description;
  }

  private void startEmbeddedPostgres() throws IOException, SQLException {
    EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
    resources.push(pg);
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE orders");
      st.execute("CREATE DATABASE payments");
    }
    orders = pool("orders", pg.getJdbcUrl("postgres", "orders"), "postgres", "");
    payments = pool("payments", pg.getJdbcUrl("postgres", "payments"), "postgres", "");
    description = "embedded PostgreSQL on 127.0.0.1:" + pg.getPort() + " (databases orders, payments)";
  }

  private void createDatabases(String jdbcUrl, String user, String password, String prefix, boolean keep)
      throws SQLException {
    String ordersDb = prefix + "_orders";
    String paymentsDb = prefix + "_payments";
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", password == null ? "" : password);
    try (Connection c = DriverManager.getConnection(jdbcUrl, props); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + ordersDb);
      st.execute("CREATE DATABASE " + paymentsDb);
    }
    if (!keep) {
      resources.push(() -> {
        try (Connection c = DriverManager.getConnection(jdbcUrl, props); Statement st = c.createStatement()) {
          st.execute("DROP DATABASE IF EXISTS " + ordersDb + " WITH (FORCE)");
          st.execute("DROP DATABASE IF EXISTS " + paymentsDb + " WITH (FORCE)");
        }
      });
    }
    orders = pool("orders", withDatabase(jdbcUrl, ordersDb), user, password);
    payments = pool("payments", withDatabase(jdbcUrl, paymentsDb), user, password);
    description = "PostgreSQL at " + withDatabase(jdbcUrl, "") + " (databases " + ordersDb + ", " + paymentsDb
        + (keep ? ", kept" : ", dropped at the end") + ")";
  }

  private void startBroker() {
    KafkaBroker broker = KafkaBroker.start();
    resources.push(broker);
    topics = new Topics(broker.bootstrapServers(), "orders", "payments", "");
    broker.createTopic(topics.orders(), Topics.PARTITIONS);
    broker.createTopic(topics.payments(), Topics.PARTITIONS);
    description += "; Kafka broker process pid " + broker.pid() + " on " + broker.bootstrapServers()
        + " (topics orders, payments)";
  }

  private HikariDataSource pool(String name, String url, String user, String password) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password == null ? "" : password);
    config.setMaximumPoolSize(POOL_SIZE);
    config.setConnectionTimeout(30_000);
    HikariDataSource pool = new HikariDataSource(config);
    resources.push(pool);
    return pool;
  }

  /** The URL with its database name replaced: {@code jdbc:postgresql://h:p/x?q} → {@code …/db?q}. */
  static String withDatabase(String jdbcUrl, String database) {
    int hostStart = jdbcUrl.indexOf("//");
    int slash = jdbcUrl.indexOf('/', hostStart < 0 ? 0 : hostStart + 2);
    if (hostStart < 0 || slash < 0) {
      throw new IllegalArgumentException("expected jdbc:postgresql://host[:port]/database, got " + jdbcUrl);
    }
    int query = jdbcUrl.indexOf('?', slash);
    return jdbcUrl.substring(0, slash + 1) + database + (query < 0 ? "" : jdbcUrl.substring(query));
  }

  private static void createTopics(String bootstrap, List<String> names) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(props)) {
      for (String name : names) {
        try {
          admin.createTopics(List.of(new NewTopic(name, Optional.of(Topics.PARTITIONS), Optional.empty())))
              .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause(), e.getCause());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (TimeoutException e) {
          throw new IllegalStateException("topic " + name + " not created within 30 s", e);
        }
      }
    }
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing the demo's servers failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
