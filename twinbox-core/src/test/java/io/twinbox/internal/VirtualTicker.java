package io.twinbox.internal;

/** A {@link Ticker} whose time moves only when a test advances it or the code under test sleeps. */
final class VirtualTicker implements Ticker {
  private long now;

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public void sleep(long millis) {
    now += millis * 1_000_000;
  }

  void advanceNanos(long nanos) {
    now += nanos;
  }
}
