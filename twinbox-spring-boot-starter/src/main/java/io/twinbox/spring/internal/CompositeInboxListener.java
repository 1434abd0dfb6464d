package io.twinbox.spring.internal;

import io.twinbox.InboxListener;
import io.twinbox.InboxMessage;
import java.time.Duration;
import java.util.List;

/** Fans the inbox's events out to every {@link InboxListener} bean, in bean order. */
public final class CompositeInboxListener implements InboxListener {
  private final List<InboxListener> listeners;

  private CompositeInboxListener(List<InboxListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /** {@link InboxListener#NONE} for none, the listener itself for one. */
  public static InboxListener of(List<InboxListener> listeners) {
    return listeners.isEmpty() ? InboxListener.NONE
        : listeners.size() == 1 ? listeners.get(0) : new CompositeInboxListener(listeners);
  }

  @Override
  public void processed(InboxMessage message) {
    listeners.forEach(l -> l.processed(message));
  }

  @Override
  public void duplicate(InboxMessage message) {
    listeners.forEach(l -> l.duplicate(message));
  }

  @Override
  public void parked(InboxMessage message, String reason) {
    listeners.forEach(l -> l.parked(message, reason));
  }

  @Override
  public void parkFailed(InboxMessage message, String reason) {
    listeners.forEach(l -> l.parkFailed(message, reason));
  }

  @Override
  public void committed(InboxMessage message, Duration sinceReceived, Duration sinceEvent) {
    listeners.forEach(l -> l.committed(message, sinceReceived, sinceEvent));
  }
}
