package io.twinbox.bench.peers.debezium;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.twinbox.testkit.PostgresDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A running Debezium embedded engine (the asynchronous engine of Debezium 3, Connect format) with
 * the outbox configuration of {@link Debezium#engineProperties} and a {@link KafkaSink}, on its own
 * thread. {@link #close()} stops the engine and the producer.
 */
final class OutboxEngine implements AutoCloseable {
  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final KafkaSink sink;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "debezium-engine");
    t.setDaemon(true);
    return t;
  });
  private volatile Throwable error;
  private volatile boolean completed;

  private OutboxEngine(DebeziumEngine<RecordChangeEvent<SourceRecord>> engine, KafkaSink sink) {
    this.engine = engine;
    this.sink = sink;
  }

  /**
   * Builds and starts the engine on {@code slot}, routing to {@code topic}.
   *
   * @param ackTimes where the sink notes each event's ack time; null: nowhere
   */
  static OutboxEngine start(PostgresDatabase db, Debezium.Setup setup, String slot, String topic, String bootstrap,
      Map<UUID, Long> ackTimes) {
    KafkaSink sink = new KafkaSink(bootstrap, ackTimes);
    OutboxEngine[] self = new OutboxEngine[1];
    DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(Debezium.engineProperties(db, setup, slot, topic))
        .using((success, message, error) -> {
          OutboxEngine e = self[0];
          if (e != null) {
            e.completed = true;
            if (!success) {
              e.error = error != null ? error : new IllegalStateException(message);
              System.err.println("debezium engine stopped: " + message + (error == null ? "" : " " + error));
            }
          }
        })
        .notifying(sink)
        .build();
    OutboxEngine e = new OutboxEngine(engine, sink);
    self[0] = e;
    e.thread.execute(engine);
    return e;
  }

  /** Events acknowledged by Kafka so far. */
  long acked() {
    return sink.acked();
  }

  KafkaSink sink() {
    return sink;
  }

  /**
   * Waits until {@code acked() >= n} or {@code timeout} has passed.
   *
   * @return whether all arrived
   * @throws IllegalStateException when the engine stopped with an error
   */
  boolean awaitAcked(long n, Duration timeout) throws InterruptedException {
    return await(sink::acked, n, timeout);
  }

  private boolean await(LongSupplier count, long n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count.getAsLong() < n) {
      check();
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return true;
  }

  /** Throws when the engine or the sink failed. */
  void check() {
    Throwable t = sink.failure() != null ? sink.failure() : error;
    if (t != null) {
      throw new IllegalStateException("the Debezium engine failed: " + t, t);
    }
    if (completed) {
      throw new IllegalStateException("the Debezium engine stopped unexpectedly");
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      completed = true;
      engine.close();
      thread.shutdown();
      if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } finally {
      sink.close();
    }
  }
}
