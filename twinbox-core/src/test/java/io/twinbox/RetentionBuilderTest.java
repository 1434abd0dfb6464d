package io.twinbox;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.testing.InMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@link Retention.Builder#build()} refuses before a round could fail on it. */
class RetentionBuilderTest {
  @Test
  void archiveModeOnAStoreWithoutAnArchiveIsRefusedNamingTheSetting() {
    InMemoryStore store = InMemoryStore.create();
    assertThatThrownBy(() -> Retention.builder().outbox(store, Duration.ofDays(30)).archive(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("archive is on")
        .hasMessageContaining("InMemoryStore has no archive");
    assertThatCode(() -> Retention.builder().outbox(store, Duration.ofDays(30)).build().close())
        .doesNotThrowAnyException();
  }

  @Test
  void anInboxAgeBelowTheRedeliveryHorizonIsRefusedNamingBoth() {
    InMemoryStore store = InMemoryStore.create();
    assertThatThrownBy(() -> Retention.builder().inbox(store, Duration.ofDays(1)).build())
        .isInstanceOf(InboxRetentionTooShortException.class)
        .hasMessageContaining("inboxAge")
        .hasMessageContaining("redeliveryHorizon");
  }
}
