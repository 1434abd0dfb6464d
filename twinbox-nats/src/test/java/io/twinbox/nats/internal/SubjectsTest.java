package io.twinbox.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.spi.PublishOutcome.Kind;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Subject names and failure classification, without a server. */
class SubjectsTest {
  @Test
  void tokensAreMadeLegal() {
    assertThat(Subjects.token("billing invoice.v2*")).isEqualTo("billing-invoice-v2-");
    assertThat(Subjects.tokens("com.example..Order Placed>")).isEqualTo("com.example.-.Order-Placed-");
  }

  @Test
  void wildcardsEmptyTokensAndSpacesAreRefused() {
    for (String bad : new String[] {"a.*", "a.>", "a..b", ".a", "a b", " ", "a.\tb"}) {
      assertThatThrownBy(() -> Subjects.validate(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(Subjects.validate("twinbox.order.OrderPlaced")).isEqualTo("twinbox.order.OrderPlaced");
  }

  @Test
  void failuresAreClassified() { // API error 10054 is proven on the server by the contract
    // Issue 22: the error text decides nothing. A status reply instead of an ack is an outage
    // until the server's stream list confirms that no stream captures the subject.
    Throwable noResponders = new CompletionException(new RuntimeException(
        new IOException("Error Publishing: 503 No Responders Available For Request")));
    assertThat(NatsOutcomes.classify(noResponders, "s").kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(NatsOutcomes.mayLackAStream(noResponders)).isTrue();
    assertThat(NatsOutcomes.mayLackAStream(new CompletionException(new TimeoutException()))).isFalse();
    assertThat(NatsOutcomes.noStream("a.b").kind()).isEqualTo(Kind.REJECTED);
    assertThat(NatsOutcomes.noStream("a.b").reason()).startsWith("no stream").contains("'a.b'");
    assertThat(NatsOutcomes.classify(new IllegalArgumentException("Message payload size exceed server"), "s").kind())
        .isEqualTo(Kind.REJECTED);
    assertThat(NatsOutcomes.classify(new CompletionException(new TimeoutException()), "s").kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(NatsOutcomes.classify(new IllegalStateException("Connection is Closed"), "s").kind())
        .isEqualTo(Kind.UNAVAILABLE);
    assertThat(NatsOutcomes.classify(new IOException("Connection reset"), "s").kind()).isEqualTo(Kind.UNAVAILABLE);
  }
}
