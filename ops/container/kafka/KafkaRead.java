// Reads a topic from the beginning and prints each record's value, one a line, until `expected`
// values containing `marker` were seen or `timeoutSeconds` passed (exit code 1 then).
// A helper of ops/container/run-test.sh (BROKER=kafka), run as a single-file program:
//   java -cp <kafka-clients…> ops/container/kafka/KafkaRead.java <bootstrap> <topic> <marker> <expected> <timeoutSeconds>
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class KafkaRead {
  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: KafkaRead <bootstrap> <topic> <marker> <expected> <timeoutSeconds>");
      System.exit(2);
    }
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "container-test-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    int expected = Integer.parseInt(args[3]);
    long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
    int seen = 0;
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(args[1]));
      while (seen < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          System.out.println(record.value());
          if (record.value() != null && record.value().contains(args[2])) {
            seen++;
          }
        }
      }
    }
    System.exit(seen >= expected ? 0 : 1);
  }
}
