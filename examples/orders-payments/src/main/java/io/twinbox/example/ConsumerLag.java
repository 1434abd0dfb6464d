package io.twinbox.example;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How many records of a topic a consumer group has not committed yet. Since the inbox consumer
 * commits offsets only after the database commit, a lag of 0 means every record was applied (or
 * skipped as a duplicate, or parked). Used to decide that a run has drained.
 *
 * <p>Not thread-safe; close it when done.
 */
final class ConsumerLag implements AutoCloseable {
  private final Admin admin;

  ConsumerLag(String bootstrapServers) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    this.admin = Admin.create(props);
  }

  /** End offsets minus committed offsets of {@code group} over every partition of {@code topic}. */
  long of(String group, String topic) throws InterruptedException {
    try {
      int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
          .get(topic).partitions().size();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
          admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      long lag = 0;
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
        OffsetAndMetadata c = committed.get(e.getKey());
        lag += e.getValue().offset() - (c == null ? 0 : c.offset());
      }
      return lag;
    } catch (ExecutionException | TimeoutException e) {
      return Long.MAX_VALUE; // unknown: not drained
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}
