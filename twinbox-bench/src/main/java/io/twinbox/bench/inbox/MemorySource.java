package io.twinbox.bench.inbox;

import io.twinbox.InboxMessage;
import io.twinbox.spi.MessageSource;
import io.twinbox.spi.ReceivedMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * The workload as a {@link MessageSource} without a broker: the messages decoded up front, handed
 * out 500 at a time (a Kafka poll's {@code max.poll.records}); settling and giving back do nothing.
 * What the library costs on the database alone, measured next to the raw-SQL loop.
 */
final class MemorySource implements MessageSource {
  private final List<ReceivedMessage> messages;
  private int next;

  MemorySource(List<InboxBench.Msg> msgs) {
    Instant now = Instant.now();
    messages = new ArrayList<>(msgs.size());
    for (InboxBench.Msg m : msgs) {
      InboxMessage im = new InboxMessage(m.id(), "PaymentReceived", 1, "/bench/payments", "Account",
          "acct-" + m.account(), 0, m.payload(), Map.of(), null, null, null, now, "memory");
      messages.add(new ReceivedMessage(im, null, false, now));
    }
  }

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public List<ReceivedMessage> fetch() throws InterruptedException {
    if (next >= messages.size()) {
      Thread.sleep(10);
      return List.of();
    }
    List<ReceivedMessage> out = messages.subList(next, Math.min(messages.size(), next + 500));
    next += out.size();
    return out;
  }

  @Override
  public void settle(int from, int to, IntPredicate parked) {}

  @Override
  public void giveBack(int done) {}

  @Override
  public long sessions() {
    return 1;
  }

  @Override
  public void close() {}
}
