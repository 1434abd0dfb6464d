package io.twinbox.rabbitmq.internal;

import io.twinbox.spi.PublishOutcome;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The publishes of one confirm-mode channel still waiting for the broker's answer, by publish
 * sequence number (the confirm's delivery tag).
 *
 * <p>With {@code mandatory}, an unroutable message comes back as {@code basic.return} <em>before</em>
 * its {@code basic.ack}: the return marks the pending publish, and the ack then completes it as
 * {@code REJECTED} — an acknowledged but unroutable message is never reported as published. A
 * {@code basic.nack} (the broker could not take the message) is {@code RETRY}; a closed channel or
 * connection fails everything outstanding as {@code UNAVAILABLE} (the answer is unknown, so the
 * relay republishes and the inbox absorbs a duplicate). Thread-safe: the client calls back on its
 * connection thread, publishers register from the relay's threads.
 */
public final class ConfirmTracker {
  private static final class Pending {
    final String messageId;
    final CompletableFuture<PublishOutcome> future = new CompletableFuture<>();
    volatile String returned;

    Pending(String messageId) {
      this.messageId = messageId;
    }
  }

  /** Counters shared by the trackers of one publisher, across reconnections. */
  public record Counters(AtomicLong acked, AtomicLong returned, AtomicLong nacked) {
    public Counters() {
      this(new AtomicLong(), new AtomicLong(), new AtomicLong());
    }
  }

  private final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
  private final Counters counters;
  private volatile String closedReason;

  public ConfirmTracker(Counters counters) {
    this.counters = counters;
  }

  /** Registers publish {@code seq}; call before {@code basicPublish}, under the channel's lock. */
  public CompletableFuture<PublishOutcome> register(long seq, String messageId) {
    Pending p = new Pending(messageId);
    String closed = closedReason;
    if (closed != null) {
      p.future.complete(PublishOutcome.unavailable(closed));
      return p.future;
    }
    pending.put(seq, p);
    p.future.whenComplete((o, e) -> pending.remove(seq, p));
    return p.future;
  }

  /** {@code basic.return}: marks the oldest pending publish of this message id as unroutable. */
  public void onReturn(String messageId, int replyCode, String replyText, String exchange, String routingKey) {
    for (Pending p : pending.values()) {
      if (p.returned == null && p.messageId.equals(messageId)) {
        p.returned = "unroutable: the broker returned the mandatory message (" + replyCode + " " + replyText
            + ", exchange '" + exchange + "', routing key '" + routingKey + "'): no queue is bound for it";
        counters.returned().incrementAndGet();
        return;
      }
    }
  }

  public void onAck(long tag, boolean multiple) {
    settle(tag, multiple, true);
  }

  public void onNack(long tag, boolean multiple) {
    settle(tag, multiple, false);
  }

  private void settle(long tag, boolean multiple, boolean ack) {
    Map<Long, Pending> settled = multiple ? pending.headMap(tag, true) : single(tag);
    for (Pending p : settled.values()) {
      PublishOutcome outcome;
      if (p.returned != null) {
        outcome = PublishOutcome.rejected(p.returned);
      } else if (ack) {
        counters.acked().incrementAndGet();
        outcome = PublishOutcome.acked();
      } else {
        counters.nacked().incrementAndGet();
        outcome = PublishOutcome.retry("basic.nack: the broker could not take the message (e.g. a queue with "
            + "x-overflow=reject-publish is full, or an internal error)");
      }
      p.future.complete(outcome);
    }
  }

  private Map<Long, Pending> single(long tag) {
    Pending p = pending.get(tag);
    return p == null ? Map.of() : Map.of(tag, p);
  }

  /** The channel is gone: every outstanding publish (and every later one) is UNAVAILABLE. */
  public void closeAll(String reason) {
    closedReason = reason;
    for (Pending p : pending.values()) {
      p.future.complete(PublishOutcome.unavailable(reason));
    }
  }

  /** Fails one publish whose {@code basicPublish} itself threw. */
  public void fail(long seq, PublishOutcome outcome) {
    Pending p = pending.get(seq);
    if (p != null) {
      p.future.complete(outcome);
    }
  }

  public int outstanding() {
    return pending.size();
  }
}
