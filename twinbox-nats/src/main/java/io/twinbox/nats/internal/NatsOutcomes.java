package io.twinbox.nats.internal;

import io.nats.client.JetStreamApiException;
import io.twinbox.spi.PublishOutcome;
import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * Sorts a JetStream publish failure into the relay's four outcomes. Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code REJECTED}: no stream captures the subject (the server answers 503 "no responders"),
 *       a message over the stream's {@code max_msg_size} (API error 10054), or over the server's
 *       {@code max_payload} (jnats refuses it before sending), an invalid subject or header.
 *   <li>{@code UNAVAILABLE}: no ack in time (timeout, cancelled request), a closed or reconnecting
 *       connection, any other I/O failure; the publish may have been stored — the relay republishes
 *       with the same {@code Nats-Msg-Id} and JetStream drops it within the duplicate window.
 *   <li>{@code RETRY}: any other JetStream API error.
 * </ul>
 */
public final class NatsOutcomes {
  /** JetStream API error codes that mean the message itself can never be stored. */
  private static final Set<Integer> REJECTED_CODES = Set.of(
      10054, // message size exceeds maximum allowed
      10060); // expected stream does not match
  public static final int MAX_REASON_LENGTH = 500;

  private NatsOutcomes() {}

  public static PublishOutcome classify(Throwable failure, String subject) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JetStreamApiException j) {
        String text = "JetStream API error " + j.getApiErrorCode() + ": " + j.getErrorDescription();
        return REJECTED_CODES.contains(j.getApiErrorCode())
            ? PublishOutcome.rejected(clip(text + " (subject " + subject + ")"))
            : PublishOutcome.retry(clip(text));
      }
      if (t instanceof IOException && isNoResponders(t.getMessage())) {
        // jnats reports the 503 status only as the text of an IOException; there is no typed error.
        return PublishOutcome.rejected(clip("no stream: no JetStream stream captures subject '" + subject
            + "' (503 no responders)"));
      }
      if (t instanceof TimeoutException || t instanceof CancellationException) {
        return PublishOutcome.unavailable("no JetStream publish ack in time (subject " + subject + ")");
      }
      if (t instanceof IllegalArgumentException) {
        return PublishOutcome.rejected(clip("NATS refused the message: " + t.getMessage()));
      }
      if (t instanceof IllegalStateException || t instanceof IOException) {
        return PublishOutcome.unavailable(clip(t.getClass().getSimpleName() + ": " + t.getMessage()));
      }
    }
    return PublishOutcome.retry(clip(failure.getClass().getSimpleName() + ": " + failure.getMessage()));
  }

  static boolean isNoResponders(String message) {
    if (message == null) {
      return false;
    }
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("no responders") || m.startsWith("error publishing: 503");
  }

  static String clip(String s) {
    return s.length() <= MAX_REASON_LENGTH ? s : s.substring(0, MAX_REASON_LENGTH - 3) + "...";
  }
}
