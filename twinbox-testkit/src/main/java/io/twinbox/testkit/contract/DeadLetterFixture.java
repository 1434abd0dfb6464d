package io.twinbox.testkit.contract;

import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the {@link DeadLetterContract} needs from a transport and its broker: a publisher whose
 * poison events are refused for good by the broker, the dead-letter destination its default names
 * derive, a way to cut the dead-letter path only, and a reader that uses the CloudEvents SDK alone.
 */
public interface DeadLetterFixture extends AutoCloseable {

  /** A name for messages, e.g. {@code RabbitMQ}. */
  String name();

  /** A migrated PostgreSQL database (the Twinbox schema). */
  DataSource dataSource();

  /** The outbox store on {@link #dataSource()}. */
  OutboxStore store();

  /**
   * Creates a fresh main destination and the dead-letter destination that the publisher's default
   * dead-letter names derive for the poison route ({@link #publisher}), e.g. topic {@code x.dlq};
   * returns the id the other methods take.
   */
  String create(String name);

  /**
   * A publisher that routes every event whose payload contains {@code poison} to a destination that
   * does not exist (the broker refuses it for good: REJECTED) and every other event to the main
   * destination; its {@link Transport#deadLetters()} reaches the dead-letter destination by the
   * transport's default names. The caller closes it.
   */
  Transport publisher(String destination);

  /**
   * The dead letters of a second publisher, connected through a proxy that {@link #cutDeadLetters}
   * cuts (the main publisher is not behind it); {@code null} when the fixture has no such proxy
   * (the outage test is then skipped, saying why). Closed by {@link #close()}.
   */
  DeadLetterTransport deadLettersThroughProxy(String destination);

  /** Makes the dead-letter path of {@link #deadLettersThroughProxy} unreachable. */
  void cutDeadLetters();

  /** Ends {@link #cutDeadLetters}'s outage. */
  void restoreDeadLetters();

  /**
   * Every dead letter read so far from the dead-letter destination, reading more until there are
   * {@code atLeast} or {@code wait} passed — read with the CloudEvents SDK's binding alone.
   */
  List<SdkEvent> deadLetters(String destination, int atLeast, Duration wait);

  /** Messages the main destination has received so far. */
  long delivered(String destination);

  @Override
  void close();

  /** A CloudEvent as the SDK read it; extension values as the SDK's text. */
  record SdkEvent(String id, String type, String source, String subject, Map<String, String> extensions,
      String data) {}
}
