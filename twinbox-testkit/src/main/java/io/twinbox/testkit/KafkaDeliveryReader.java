package io.twinbox.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every record of some topics from the beginning, as {@link Delivery} values for the {@link
 * DeliveryChecker}. It assigns all partitions itself (no consumer group, nothing committed) and
 * reads with {@code isolation.level=read_committed}, so records of aborted Kafka transactions are
 * never seen.
 *
 * <p>Records are parsed from the Twinbox wire format, CloudEvents 1.0 binary mode with UTF-8 Kafka
 * headers: {@code ce_id} (message id), {@code ce_aggregatetype}, {@code ce_subject} (aggregate id,
 * absent for unordered events) and {@code ce_sequence} (decimal; 0 for unordered events).
 *
 * <p>Stateless and thread-safe: each call uses its own consumer.
 */
public final class KafkaDeliveryReader {
  /** How long the final read up to the end offsets may take after {@link #awaitIds} timed out. */
  private static final Duration DRAIN_GRACE = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final long REFRESH_NANOS = Duration.ofMillis(500).toNanos();

  private KafkaDeliveryReader() {}

  /**
   * Reads all records of {@code topics} from the beginning up to the end offsets taken when the
   * call starts. Topics that do not exist yet contribute nothing.
   *
   * @return the deliveries in consumption order
   * @throws IllegalStateException when the end offsets are not reached within {@code timeout}
   */
  public static List<Delivery> readAll(String bootstrapServers, Collection<String> topics,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Delivery> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers)) {
      Set<TopicPartition> partitions = new HashSet<>();
      addNewPartitions(consumer, topics, partitions);
      drain(consumer, partitions, deadline, out, new HashSet<>());
    }
    return out;
  }

  /**
   * Polls {@code topics} from the beginning until every id in {@code expected} has been seen or
   * {@code timeout} has passed, then reads on up to the end offsets of that moment (allowing 30 s
   * more for that). Partitions and topics that appear while waiting are read too. A timeout is not
   * an error: the ids still missing show up as lost in the {@link DeliveryChecker}.
   *
   * @return every delivery read, in consumption order
   * @throws IllegalStateException when the final end offsets cannot be reached
   */
  public static List<Delivery> awaitIds(String bootstrapServers, Collection<String> topics,
      Set<UUID> expected, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Delivery> out = new ArrayList<>();
    Set<UUID> seen = new HashSet<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers)) {
      Set<TopicPartition> partitions = new HashSet<>();
      long nextRefresh = System.nanoTime();
      while (!seen.containsAll(expected) && System.nanoTime() - deadline < 0) {
        if (System.nanoTime() - nextRefresh >= 0) {
          addNewPartitions(consumer, topics, partitions);
          nextRefresh = System.nanoTime() + REFRESH_NANOS;
        }
        poll(consumer, partitions, out, seen);
      }
      addNewPartitions(consumer, topics, partitions);
      drain(consumer, partitions, System.nanoTime() + DRAIN_GRACE.toNanos(), out, seen);
    }
    return out;
  }

  /**
   * Parses one record of the Twinbox wire format.
   *
   * @throws IllegalStateException when {@code ce_id} is missing or not a UUID, or {@code
   *     ce_sequence} is not a number
   */
  public static Delivery toDelivery(ConsumerRecord<byte[], byte[]> record) {
    String where = record.topic() + "-" + record.partition() + "@" + record.offset();
    String id = header(record, "ce_id");
    String sequence = header(record, "ce_sequence");
    try {
      return new Delivery(record.topic(), record.partition(), record.offset(),
          record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8),
          UUID.fromString(requireHeader(id, "ce_id", where)),
          header(record, "ce_aggregatetype"), header(record, "ce_subject"),
          sequence == null ? 0 : Long.parseLong(sequence));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("record " + where + " is not a Twinbox event: " + e
          .getMessage(), e);
    }
  }

  private static String requireHeader(String value, String name, String where) {
    if (value == null) {
      throw new IllegalArgumentException("header " + name + " missing at " + where);
    }
    return value;
  }

  /** The last header of that name as UTF-8 text, or null. */
  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static void drain(KafkaConsumer<byte[], byte[]> consumer,
      Set<TopicPartition> partitions, long deadline, List<Delivery> out, Set<UUID> seen) {
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    while (!reached(consumer, end)) {
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException("could not read up to end offsets " + end + " in time; "
            + "read " + out.size() + " records");
      }
      poll(consumer, partitions, out, seen);
    }
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> consumer,
      Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static void poll(KafkaConsumer<byte[], byte[]> consumer, Set<TopicPartition> partitions,
      List<Delivery> out, Set<UUID> seen) {
    if (partitions.isEmpty()) {
      // Nothing assigned yet (the topics do not exist): poll() would throw.
      sleep(POLL.toMillis());
      return;
    }
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
      Delivery delivery = toDelivery(record);
      out.add(delivery);
      seen.add(delivery.id());
    }
  }

  /** Assigns partitions of {@code topics} not assigned yet and rewinds them to the beginning. */
  private static void addNewPartitions(KafkaConsumer<byte[], byte[]> consumer,
      Collection<String> topics, Set<TopicPartition> assigned) {
    Map<String, List<PartitionInfo>> existing = consumer.listTopics(Duration.ofSeconds(10));
    List<TopicPartition> added = new ArrayList<>();
    for (String topic : topics) {
      for (PartitionInfo info : existing.getOrDefault(topic, List.of())) {
        TopicPartition partition = new TopicPartition(topic, info.partition());
        if (assigned.add(partition)) {
          added.add(partition);
        }
      }
    }
    if (!added.isEmpty()) {
      consumer.assign(assigned);
      consumer.seekToBeginning(added);
    }
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "twinbox-delivery-reader");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading Kafka", e);
    }
  }
}
