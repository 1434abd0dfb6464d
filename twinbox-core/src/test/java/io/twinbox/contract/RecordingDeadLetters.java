package io.twinbox.contract;

import io.twinbox.spi.DeadLetter;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.PublishOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A dead-letter destination in memory: records what it acknowledged; can be made unreachable. */
final class RecordingDeadLetters implements DeadLetterTransport {
  private final List<DeadLetter> acked = new CopyOnWriteArrayList<>();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile boolean down;

  RecordingDeadLetters down(boolean isDown) {
    this.down = isDown;
    return this;
  }

  List<DeadLetter> acked() {
    return new ArrayList<>(acked);
  }

  int refused() {
    return refused.get();
  }

  @Override
  public String name() {
    return "recording dead letters";
  }

  @Override
  public CompletableFuture<PublishOutcome> send(DeadLetter letter) {
    if (down) {
      refused.incrementAndGet();
      return CompletableFuture.completedFuture(PublishOutcome.unavailable("injected dead-letter outage"));
    }
    acked.add(letter);
    return CompletableFuture.completedFuture(PublishOutcome.acked());
  }
}
