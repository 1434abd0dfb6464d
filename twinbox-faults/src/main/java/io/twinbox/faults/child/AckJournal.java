package io.twinbox.faults.child;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * A transport decorator that appends the id of every message the broker acknowledged to a file,
 * before the relay sees the acknowledgement (and so before it can mark the row). The write goes
 * straight to the kernel, so even {@code kill -9} cannot lose a line of a row that was marked: the
 * checker uses the journal to tell a broker's loss from the library's.
 */
final class AckJournal implements Transport {
  private final Transport delegate;
  private final FileOutputStream out;

  AckJournal(Transport delegate, Path file) {
    this.delegate = delegate;
    try {
      this.out = new FileOutputStream(file.toFile(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage message) {
    return delegate.send(message).thenApply(outcome -> {
      if (outcome.kind() == PublishOutcome.Kind.ACKED) {
        record(message);
      }
      return outcome;
    });
  }

  private synchronized void record(OutboxMessage message) {
    try {
      out.write((message.id() + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public void close() {
    delegate.close();
    try {
      out.close();
    } catch (IOException e) {
      // The journal was written line by line; nothing is buffered.
    }
  }
}
