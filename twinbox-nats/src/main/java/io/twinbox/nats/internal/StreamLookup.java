package io.twinbox.nats.internal;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Asks JetStream whether any stream captures a subject ({@code $JS.API.STREAM.NAMES} with the
 * subject as filter), to tell a publish that failed because no stream exists from one that failed
 * for another reason. jnats reports a publish's 503 "no responders" status only as the text of an
 * {@code IOException}; the server's stream list is a typed answer.
 *
 * <p>Lookups run on a daemon thread of their own (a publish ack completes on the NATS client's
 * reader thread, which a request must never block) and concurrent lookups of one subject share one
 * request. Thread-safe.
 */
public final class StreamLookup implements AutoCloseable {
  /** What JetStream said about a subject. */
  public enum Answer {
    /** At least one stream captures it. */
    CAPTURED,
    /** JetStream answered and no stream captures it. */
    NONE,
    /** No answer (timeout, lost connection, no permission for the JetStream API). */
    UNKNOWN
  }

  private final ConnectionHolder connection;
  private final JetStreamOptions options;
  private final ConcurrentHashMap<String, CompletableFuture<Answer>> inFlight = new ConcurrentHashMap<>();
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "twinbox-nats-stream-lookup");
    t.setDaemon(true);
    return t;
  });

  /** @param timeout the JetStream API request timeout */
  public StreamLookup(ConnectionHolder connection, Duration timeout) {
    this.connection = connection;
    this.options = JetStreamOptions.builder().requestTimeout(timeout).build();
  }

  /** Whether a stream captures {@code subject}; completes on the lookup thread, never exceptionally. */
  public CompletableFuture<Answer> streamFor(String subject) {
    CompletableFuture<Answer> mine = new CompletableFuture<>();
    CompletableFuture<Answer> shared = inFlight.putIfAbsent(subject, mine);
    if (shared != null) {
      return shared;
    }
    mine.whenComplete((a, e) -> inFlight.remove(subject, mine));
    try {
      executor.execute(() -> mine.complete(ask(subject)));
    } catch (RejectedExecutionException e) {
      mine.complete(Answer.UNKNOWN); // closed
    }
    return mine;
  }

  private Answer ask(String subject) {
    try {
      Connection c = connection.currentOrNull();
      if (c == null || c.getStatus() != Connection.Status.CONNECTED) {
        return Answer.UNKNOWN;
      }
      JetStreamManagement jsm = c.jetStreamManagement(options);
      List<String> names = jsm.getStreamNames(subject);
      return names.isEmpty() ? Answer.NONE : Answer.CAPTURED;
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      return Answer.UNKNOWN;
    }
  }

  /** Stops the lookup thread; later lookups answer {@code UNKNOWN}. */
  @Override
  public void close() {
    executor.shutdownNow();
    inFlight.values().forEach(f -> f.complete(Answer.UNKNOWN)); // queued lookups never run now
  }
}
