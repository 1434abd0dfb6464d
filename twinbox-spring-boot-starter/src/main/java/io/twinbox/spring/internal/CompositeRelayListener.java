package io.twinbox.spring.internal;

import io.twinbox.RelayListener;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.UndecodableRow;
import java.util.List;
import java.util.Set;

/** Fans the relay's events out to every {@link RelayListener} bean, in bean order. */
public final class CompositeRelayListener implements RelayListener {
  private final List<RelayListener> listeners;

  private CompositeRelayListener(List<RelayListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /** {@link RelayListener#NONE} for none, the listener itself for one. */
  public static RelayListener of(List<RelayListener> listeners) {
    return listeners.isEmpty() ? RelayListener.NONE
        : listeners.size() == 1 ? listeners.get(0) : new CompositeRelayListener(listeners);
  }

  @Override
  public void published(List<OutboxMessage> messages) {
    listeners.forEach(l -> l.published(messages));
  }

  @Override
  public void publishFailed(OutboxMessage message, String reason, boolean dead) {
    listeners.forEach(l -> l.publishFailed(message, reason, dead));
  }

  @Override
  public void undecodable(UndecodableRow row) {
    listeners.forEach(l -> l.undecodable(row));
  }

  @Override
  public void transportUnavailable(String reason) {
    listeners.forEach(l -> l.transportUnavailable(reason));
  }

  @Override
  public void fenced(int rows) {
    listeners.forEach(l -> l.fenced(rows));
  }

  @Override
  public void leasesChanged(Set<Integer> partitions) {
    listeners.forEach(l -> l.leasesChanged(partitions));
  }
}
