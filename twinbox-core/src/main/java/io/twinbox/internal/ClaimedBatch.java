package io.twinbox.internal;

import io.twinbox.spi.ClaimedRow;
import io.twinbox.spi.FailedPublish;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One claim, split into the messages to publish and the rows that cannot be (undecodable: they go
 * to FAILED at once). A message of an aggregate whose earlier row in the same claim is undecodable
 * is held back: it stays PENDING, and from the next claim on the FAILED row holds it as any FAILED
 * row does. Messages of every other aggregate are published as if the bad row were not there.
 *
 * <p>Immutable.
 */
final class ClaimedBatch {
  private final List<OutboxMessage> messages;
  private final List<UndecodableRow> undecodable;
  private final int heldBack;

  private ClaimedBatch(List<OutboxMessage> messages, List<UndecodableRow> undecodable, int heldBack) {
    this.messages = messages;
    this.undecodable = undecodable;
    this.heldBack = heldBack;
  }

  static ClaimedBatch of(List<ClaimedRow> rows) {
    List<UndecodableRow> bad = new ArrayList<>(0);
    Map<String, Long> firstBad = new HashMap<>();
    for (ClaimedRow r : rows) {
      if (r instanceof UndecodableRow u) {
        bad.add(u);
        if (u.aggregateId() != null) {
          firstBad.merge(key(u), u.sequence(), Math::min);
        }
      }
    }
    List<OutboxMessage> messages = new ArrayList<>(rows.size() - bad.size());
    int held = 0;
    for (ClaimedRow r : rows) {
      if (r instanceof OutboxMessage m) {
        Long stop = m.aggregateId() == null || firstBad.isEmpty() ? null : firstBad.get(key(m));
        if (stop != null && m.sequence() > stop) {
          held++;
        } else {
          messages.add(m);
        }
      }
    }
    return new ClaimedBatch(messages, List.copyOf(bad), held);
  }

  private static String key(ClaimedRow r) {
    return r.aggregateType() + '\u0000' + r.aggregateId();
  }

  /** The messages to publish, in claim order. */
  List<OutboxMessage> messages() {
    return messages;
  }

  /** The rows that cannot be decoded, in claim order. */
  List<UndecodableRow> undecodable() {
    return undecodable;
  }

  /** Messages left PENDING because an earlier row of their aggregate is undecodable. */
  int heldBack() {
    return heldBack;
  }

  /** The undecodable rows as FAILED records, followed by the publish failures. */
  List<FailedPublish> failures(List<FailedPublish> publishFailures) {
    if (undecodable.isEmpty()) {
      return publishFailures;
    }
    List<FailedPublish> all = new ArrayList<>(undecodable.size() + publishFailures.size());
    for (UndecodableRow u : undecodable) {
      all.add(new FailedPublish(u.position(), true, Duration.ZERO, Reasons.clip(u.reason())));
    }
    all.addAll(publishFailures);
    return all;
  }
}
