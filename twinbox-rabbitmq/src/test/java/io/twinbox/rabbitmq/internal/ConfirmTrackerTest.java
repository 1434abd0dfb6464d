package io.twinbox.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.PublishOutcome.Kind;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How confirms, returns and closes settle pending publishes. */
class ConfirmTrackerTest {
  private final ConfirmTracker.Counters counters = new ConfirmTracker.Counters();
  private final ConfirmTracker t = new ConfirmTracker(counters);

  @Test
  void aReturnBeforeTheAckMakesItRejectedAndLeavesOthersAlone() {
    CompletableFuture<PublishOutcome> a = t.register(1, "m-a");
    CompletableFuture<PublishOutcome> b = t.register(2, "m-b");
    CompletableFuture<PublishOutcome> c = t.register(3, "m-c");
    t.onReturn("m-b", 312, "NO_ROUTE", "x", "k");
    t.onAck(3, true);
    assertThat(a.join()).isEqualTo(PublishOutcome.acked());
    assertThat(b.join().kind()).isEqualTo(Kind.REJECTED);
    assertThat(b.join().reason()).contains("312 NO_ROUTE").contains("exchange 'x'").contains("routing key 'k'");
    assertThat(c.join()).isEqualTo(PublishOutcome.acked());
    assertThat(counters.acked().get()).isEqualTo(2);
    assertThat(counters.returned().get()).isEqualTo(1);
    assertThat(t.outstanding()).isZero();
  }

  @Test
  void aSingleAckOrNackSettlesOnlyItsTag() {
    CompletableFuture<PublishOutcome> a = t.register(1, "m");
    CompletableFuture<PublishOutcome> b = t.register(2, "m");
    t.onNack(2, false);
    assertThat(a).isNotDone();
    assertThat(b.join().kind()).isEqualTo(Kind.RETRY);
    t.onAck(1, false);
    assertThat(a.join()).isEqualTo(PublishOutcome.acked());
  }

  @Test
  void twoPublishesOfOneIdAreReturnedInOrder() {
    CompletableFuture<PublishOutcome> first = t.register(1, "same");
    CompletableFuture<PublishOutcome> second = t.register(2, "same");
    t.onReturn("same", 312, "NO_ROUTE", "x", "k");
    t.onAck(1, false);
    t.onAck(2, false);
    assertThat(first.join().kind()).isEqualTo(Kind.REJECTED);
    assertThat(second.join()).isEqualTo(PublishOutcome.acked());
  }

  @Test
  void aClosedChannelFailsEverythingOutstandingAndLaterAsUnavailable() {
    CompletableFuture<PublishOutcome> a = t.register(1, "m");
    t.closeAll("connection lost: reset");
    assertThat(a.join()).isEqualTo(PublishOutcome.unavailable("connection lost: reset"));
    assertThat(t.register(2, "n").join().kind()).isEqualTo(Kind.UNAVAILABLE);
  }
}
