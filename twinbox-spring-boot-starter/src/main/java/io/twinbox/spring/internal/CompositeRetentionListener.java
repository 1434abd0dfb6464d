package io.twinbox.spring.internal;

import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import java.time.Duration;
import java.util.List;

/** Fans retention's events out to every {@link RetentionListener} bean, in bean order. */
public final class CompositeRetentionListener implements RetentionListener {
  private final List<RetentionListener> listeners;

  private CompositeRetentionListener(List<RetentionListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /** {@link RetentionListener#NONE} for none, the listener itself for one. */
  public static RetentionListener of(List<RetentionListener> listeners) {
    return listeners.isEmpty() ? RetentionListener.NONE
        : listeners.size() == 1 ? listeners.get(0) : new CompositeRetentionListener(listeners);
  }

  @Override
  public void deleted(Kind kind, int rows) {
    listeners.forEach(l -> l.deleted(kind, rows));
  }

  @Override
  public void roundCompleted(Retention.Result result, Duration took) {
    listeners.forEach(l -> l.roundCompleted(result, took));
  }

  @Override
  public void roundSkipped() {
    listeners.forEach(RetentionListener::roundSkipped);
  }

  @Override
  public void roundFailed(RuntimeException error) {
    listeners.forEach(l -> l.roundFailed(error));
  }
}
