package io.twinbox.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/** The admin-client calls behind {@link KafkaBroker}: readiness and topic creation. */
final class BrokerAdmin {
  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

  private BrokerAdmin() {}

  /**
   * Waits until the broker answers {@code describeCluster}. Returns false as soon as the process
   * has exited, and false when the deadline passes with the process still alive.
   */
  static boolean awaitReady(String bootstrap, int port, Process process, long deadlineNanos) {
    // Wait for the port first: an admin client aimed at a closed port logs a warning per retry.
    while (!LocalServers.isUp("127.0.0.1", port)) {
      if (!process.isAlive() || System.nanoTime() - deadlineNanos > 0) {
        return false;
      }
      pause(100);
    }
    try (Admin admin = Admin.create(properties(bootstrap))) {
      while (process.isAlive() && System.nanoTime() - deadlineNanos < 0) {
        try {
          if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
            return true;
          }
        } catch (ExecutionException | TimeoutException e) {
          // Not ready yet: the broker may still be catching up with its metadata log.
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
        pause(100);
      }
      return false;
    }
  }

  static void createTopic(String bootstrap, String name, int partitions) {
    try (Admin admin = Admin.create(properties(bootstrap))) {
      try {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all()
            .get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException("cannot create topic " + name, e.getCause());
        }
      }
      awaitLeaders(admin, name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic " + name + " not created within " + TOPIC_TIMEOUT, e);
    }
  }

  private static void awaitLeaders(Admin admin, String name)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
    while (System.nanoTime() - deadline < 0) {
      try {
        Map<String, TopicDescription> topics = admin.describeTopics(List.of(name))
            .allTopicNames().get(5, TimeUnit.SECONDS);
        List<TopicPartitionInfo> parts = topics.get(name).partitions();
        if (!parts.isEmpty() && parts.stream().allMatch(p -> p.leader() != null) && leadersServe(admin, name, parts)) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        // Metadata not propagated yet; ask again.
      }
      Thread.sleep(100);
    }
    throw new TimeoutException("partitions of " + name + " have no leader");
  }

  /**
   * True when every partition's leader answers a request for its end offset. The metadata can name
   * a leader before that broker serves the partition; a producer writing then gets {@code
   * NOT_LEADER_OR_FOLLOWER}, and an idempotent one can go on to fail its batches with {@code
   * OUT_OF_ORDER_SEQUENCE_NUMBER} until {@code delivery.timeout.ms} (seen once in CI: a fuzz test's
   * records never arrived).
   */
  private static boolean leadersServe(Admin admin, String name, List<TopicPartitionInfo> parts)
      throws InterruptedException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    parts.forEach(p -> request.put(new TopicPartition(name, p.partition()), OffsetSpec.latest()));
    try {
      admin.listOffsets(request).all().get(5, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      return false; // not served yet; ask again
    }
  }

  private static Properties properties(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
    return props;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
  }
}
