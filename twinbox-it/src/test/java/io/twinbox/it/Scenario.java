package io.twinbox.it;

import io.twinbox.kafka.KafkaPublisher;
import io.twinbox.kafka.TopicRouter;
import io.twinbox.testkit.CheckResult;
import io.twinbox.testkit.Delivery;
import io.twinbox.testkit.DeliveryChecker;
import io.twinbox.testkit.ExpectedEvent;
import io.twinbox.testkit.KafkaDeliveryReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/** What every scenario does the same way: servers, topics, the checker, the result line. */
final class Scenario {
  /** Every result line is also appended here, so one file shows the whole run. */
  static final Path RESULTS = Path.of("target", TestDb.MARIADB ? "it-results-mariadb.txt"
      : TestDb.PARTITIONED ? "it-results-partitioned.txt" : "it-results.txt");

  private Scenario() {}

  /** A fresh database with the Twinbox schema and the writers' business table. */
  static TestDb migratedDatabase() throws Exception {
    TestDb db = TestDb.create();
    TestDb.store(db.dataSource()).migrate();
    Workload.createBusinessTable(db.dataSource());
    return db;
  }

  static String topicName(String prefix) {
    byte[] b = new byte[4];
    ThreadLocalRandom.current().nextBytes(b);
    return prefix + "-" + HexFormat.of().formatHex(b);
  }

  static KafkaPublisher kafka(String bootstrap, String topic) {
    return KafkaPublisher.builder(bootstrap).topicRouter(TopicRouter.fixed(topic)).build();
  }

  /** Reads the topic until every committed id arrived (or {@code timeout}), to the end, and checks. */
  static CheckResult readAndCheck(String bootstrap, String topic, Collection<ExpectedEvent> committed,
      Collection<UUID> rolledBack, Duration timeout) {
    Set<UUID> ids = committed.stream().map(ExpectedEvent::id).collect(Collectors.toSet());
    List<Delivery> deliveries = KafkaDeliveryReader.awaitIds(bootstrap, List.of(topic), ids, timeout);
    return DeliveryChecker.check(committed, rolledBack, deliveries);
  }

  /** Prints {@code [tag] text} to stdout and appends it to {@link #RESULTS}. */
  static void report(String tag, String text) {
    String line = "[" + tag + "] store=" + TestDb.STORE + " " + text;
    System.out.println(line);
    try {
      Files.createDirectories(RESULTS.getParent());
      Files.writeString(RESULTS, line + System.lineSeparator(), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
