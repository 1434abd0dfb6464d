package io.twinbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;

/**
 * Creates JetStream streams for tests and demos; production streams are usually managed by the
 * operators' own tooling. Stateless and thread-safe.
 *
 * <pre>{@code
 * NatsStreams.ensure(connection, "ORDER", "twinbox.order.>");
 * }</pre>
 */
public final class NatsStreams {
  /** The duplicate window Twinbox relies on: JetStream's default, 2 minutes. */
  public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);
  private static final int STREAM_NOT_FOUND = 10059;

  private NatsStreams() {}

  /**
   * A file-backed stream {@code name} capturing {@code subjects}, with a 2-minute duplicate window:
   * created if missing, its subjects updated if they differ, left alone otherwise.
   */
  public static StreamInfo ensure(Connection connection, String name, String... subjects) {
    return ensure(connection, StreamConfiguration.builder().name(name).subjects(subjects)
        .storageType(StorageType.File).duplicateWindow(DEFAULT_DUPLICATE_WINDOW).build());
  }

  /** Creates {@code config}'s stream if missing, or updates it to {@code config}'s subjects. */
  public static StreamInfo ensure(Connection connection, StreamConfiguration config) {
    try {
      JetStreamManagement jsm = connection.jetStreamManagement();
      StreamInfo existing;
      try {
        existing = jsm.getStreamInfo(config.getName());
      } catch (JetStreamApiException e) {
        if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
          throw e;
        }
        return jsm.addStream(config);
      }
      List<String> have = existing.getConfiguration().getSubjects();
      if (new HashSet<>(have).equals(new HashSet<>(config.getSubjects()))) {
        return existing;
      }
      return jsm.updateStream(StreamConfiguration.builder(existing.getConfiguration())
          .subjects(config.getSubjects()).build());
    } catch (IOException | JetStreamApiException e) {
      throw new IllegalStateException("cannot create or update stream " + config.getName() + ": " + e.getMessage(), e);
    }
  }

  /** Deletes stream {@code name}; false when it did not exist. */
  public static boolean delete(Connection connection, String name) {
    try {
      return connection.jetStreamManagement().deleteStream(name);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
        return false;
      }
      throw new IllegalStateException("cannot delete stream " + name + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete stream " + name + ": " + e.getMessage(), e);
    }
  }
}
