package io.twinbox.bench.inbox;

import io.twinbox.InboxConsumer;
import java.util.List;

/**
 * A broker other than Kafka for the inbox scenario (issue 16): fills a fresh destination with the
 * workload as CloudEvents (binary mode), builds the library's consumer of it, and offers a
 * hand-written consumer loop of the same destination for the baseline. Every destination is named
 * after the measurement's tag and deleted by {@link #cleanUp()}; the shared servers are never
 * touched otherwise.
 */
interface BrokerFeed {

  /** {@code rabbitmq} or {@code nats}: the prefix of the variant names. */
  String name();

  /** What the library's variants run, for the result's description. */
  String libraryDescription();

  /** What the baseline's loop does, for the result's description. */
  String rawDescription();

  /** Creates a fresh destination for {@code tag} and publishes {@code msgs} to it, in order, confirmed. */
  void fill(String tag, List<InboxBench.Msg> msgs) throws Exception;

  /** The library's consumer of the destination of {@code tag}, not yet configured with inbox, batch or handler. */
  InboxConsumer.Builder<?> library(String tag);

  /** A hand-written consumer of the destination of {@code tag} taking up to {@code batch} messages at a time. */
  Raw raw(String tag, int batch) throws Exception;

  /** Deletes the destination of the last {@link #fill}. */
  void cleanUp() throws Exception;

  /** The baseline's plain client: chunks of messages, acknowledged after the database commit. */
  interface Raw extends AutoCloseable {
    /**
     * Up to {@code batch} messages: waits at most 200 ms for the first and then 20 ms for more (the
     * library's default batch wait); empty if none came.
     */
    List<InboxBench.Msg> next() throws Exception;

    /** Acknowledges everything the last {@link #next()} returned. */
    void settle() throws Exception;
  }
}
