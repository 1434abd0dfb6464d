package io.twinbox.nats.internal;

import io.nats.client.JetStreamApiException;
import io.twinbox.spi.PublishOutcome;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * Sorts a JetStream publish failure into the relay's four outcomes. Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code REJECTED}: a message over the stream's {@code max_msg_size} (API error 10054), or
 *       over the server's {@code max_payload} (jnats refuses it before sending), an invalid subject
 *       or header; and {@link #noStream} once JetStream's stream list confirms that no stream
 *       captures the subject.
 *   <li>{@code UNAVAILABLE}: no ack in time (timeout, cancelled request), a closed or reconnecting
 *       connection, any other I/O failure — including a status reply instead of an ack (such as
 *       503 "no responders") until {@link StreamLookup} has confirmed that no stream exists; the
 *       publish may have been stored — the relay republishes with the same {@code Nats-Msg-Id} and
 *       JetStream drops it within the duplicate window.
 *   <li>{@code RETRY}: any other JetStream API error.
 * </ul>
 *
 * <p>Nothing here reads an error's text: jnats reports a status reply only as an {@code
 * IOException} message, so {@link #mayLackAStream} merely says when the stream list is worth asking.
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

  /**
   * True when a publish got an answer other than an ack (an {@code IOException} from the ack
   * future, not a timeout): e.g. the 503 status the server sends when nothing — no stream —
   * listens on the subject. Then {@link StreamLookup} decides whether it is {@link #noStream}.
   */
  public static boolean mayLackAStream(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException || t instanceof CancellationException || t instanceof JetStreamApiException) {
        return false;
      }
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /** The rejection of a message whose subject no stream captures (as JetStream's stream list says). */
  public static PublishOutcome noStream(String subject) {
    return PublishOutcome.rejected(clip("no stream: no JetStream stream captures subject '" + subject
        + "' (the publish got no ack and the server's stream list has none for it); add the subject to a"
        + " stream or fix the subject router, then retry the FAILED events"));
  }

  static String clip(String s) {
    return s.length() <= MAX_REASON_LENGTH ? s : s.substring(0, MAX_REASON_LENGTH - 3) + "...";
  }
}
