package io.twinbox.spring.internal;

import java.util.List;
import java.util.function.Consumer;

/**
 * Several inbox consumers (one per queue) started and closed as one component. If one fails to
 * start, those already started are closed again; closing closes every one, reporting the first
 * failure with the others suppressed.
 *
 * @param <C> the consumer
 */
public final class ConsumerGroup<C extends AutoCloseable> implements AutoCloseable {
  private final List<C> members;

  public ConsumerGroup(List<C> members) {
    this.members = List.copyOf(members);
  }

  /** Starts every member with {@code starter}, in order. */
  public void start(Consumer<C> starter) {
    for (int i = 0; i < members.size(); i++) {
      try {
        starter.accept(members.get(i));
      } catch (RuntimeException e) {
        closeAll(members.subList(0, i), e);
        throw e;
      }
    }
  }

  public List<C> members() {
    return members;
  }

  @Override
  public void close() throws Exception {
    Exception first = closeAll(members, null);
    if (first != null) {
      throw first;
    }
  }

  private static <C extends AutoCloseable> Exception closeAll(List<C> members, Exception first) {
    for (C member : members) {
      try {
        member.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    return first;
  }

  @Override
  public String toString() {
    return "ConsumerGroup" + members;
  }
}
