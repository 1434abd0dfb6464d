package io.twinbox.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls into the application's listeners ({@code RelayListener}, {@code InboxListener}): a listener
 * that throws is logged and never stops, delays or changes the engine that called it.
 */
final class Listeners {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);

  private Listeners() {}

  /** Runs a call into a relay listener. */
  static void relay(Runnable call) {
    run("relay", call);
  }

  /** Runs a call into an inbox listener. */
  static void inbox(Runnable call) {
    run("inbox", call);
  }

  private static void run(String kind, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("{} listener failed: {}", kind, Reasons.of(e));
    }
  }
}
