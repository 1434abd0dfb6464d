package io.twinbox.nats.internal;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends the NATS client's asynchronous errors to SLF4J instead of java.util.logging. Thread-safe. */
public final class QuietErrorListener implements ErrorListener {
  private static final Logger LOG = LoggerFactory.getLogger("io.twinbox.nats.client");

  @Override
  public void errorOccurred(Connection conn, String error) {
    LOG.warn("NATS server error: {}", error);
  }

  @Override
  public void exceptionOccurred(Connection conn, Exception exp) {
    LOG.debug("NATS client exception: {}: {}", exp.getClass().getSimpleName(), exp.getMessage());
  }
}
