package io.twinbox.testing;

import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A transport for tests: acknowledges every message itself, or passes it to a real transport,
 * and records what was acknowledged. Failures can be injected per message ({@link #failWhen}) or
 * for all ({@link #unavailable}). A fake, not a mock: it keeps the {@link Transport} contract.
 *
 * <p>Thread-safe.
 */
public final class RecordingTransport implements Transport {
  private record Rule(Predicate<OutboxMessage> when, PublishOutcome outcome) {}

  private final Transport delegate;
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final List<OutboxMessage> acked = new CopyOnWriteArrayList<>();
  private final List<OutboxMessage> attempts = new CopyOnWriteArrayList<>();
  private volatile boolean unavailable;
  private final List<DeadLetter> deadLettered = new CopyOnWriteArrayList<>();

  private RecordingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  /** A transport that acknowledges every message at once. */
  public static RecordingTransport acking() {
    return new RecordingTransport(null);
  }

  /** Records and passes every message to {@code delegate}. */
  public static RecordingTransport wrapping(Transport delegate) {
    return new RecordingTransport(delegate);
  }

  /** Answers {@code outcome} instead of publishing every message that matches. */
  public RecordingTransport failWhen(Predicate<OutboxMessage> when, PublishOutcome outcome) {
    rules.add(new Rule(when, outcome));
    return this;
  }

  /** While {@code true}, every send answers UNAVAILABLE (a broker outage). */
  public RecordingTransport unavailable(boolean down) {
    this.unavailable = down;
    return this;
  }

  /** Messages acknowledged, in the order the acknowledgements arrived. */
  public List<OutboxMessage> acked() {
    return new ArrayList<>(acked);
  }

  /** Every message handed to {@link #send}, in call order. */
  public List<OutboxMessage> attempts() {
    return new ArrayList<>(attempts);
  }

  /** Dead letters acknowledged by {@link #deadLetters()} (while not {@link #unavailable}), in order. */
  public List<DeadLetter> deadLettered() {
    return new ArrayList<>(deadLettered);
  }

  /** A dead-letter destination in memory: acknowledges and records, or UNAVAILABLE during an outage. */
  @Override
  public Optional<DeadLetterTransport> deadLetters() {
    return Optional.of(new DeadLetterTransport() {
      @Override
      public String name() {
        return RecordingTransport.this.name() + " dead letters";
      }

      @Override
      public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
        if (unavailable) {
          return CompletableFuture.completedFuture(PublishOutcome.unavailable("injected outage"));
        }
        deadLettered.add(letter);
        return CompletableFuture.completedFuture(PublishOutcome.acked());
      }
    });
  }

  @Override
  public String name() {
    return delegate == null ? "recording" : "recording:" + delegate.name();
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    attempts.add(message);
    if (unavailable) {
      return CompletableFuture.completedFuture(PublishOutcome.unavailable("injected outage"));
    }
    for (Rule r : rules) {
      if (r.when().test(message)) {
        return CompletableFuture.completedFuture(r.outcome());
      }
    }
    CompletableFuture<PublishOutcome> result = delegate == null
        ? CompletableFuture.completedFuture(PublishOutcome.acked())
        : delegate.send(message);
    return result.thenApply(o -> {
      if (o.kind() == PublishOutcome.Kind.ACKED) {
        acked.add(message);
      }
      return o;
    });
  }

  @Override
  public void flush() {
    if (delegate != null) {
      delegate.flush();
    }
  }

  @Override
  public void close() {
    if (delegate != null) {
      delegate.close();
    }
  }
}
