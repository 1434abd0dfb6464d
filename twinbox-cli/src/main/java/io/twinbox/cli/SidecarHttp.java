package io.twinbox.cli;

import io.twinbox.Health;
import io.twinbox.cli.internal.Settings;
import io.twinbox.spi.OutboxAdminStore;
import java.util.function.Supplier;

/** The sidecar's HTTP side: /metrics, /health and the admin page. */
final class SidecarHttp {
  private SidecarHttp() {}

  static AutoCloseable start(Settings s, OutboxAdminStore admin, Health health, Supplier<String> scrape) {
    return () -> {};
  }
}
