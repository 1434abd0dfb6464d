package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.testing.InMemoryStore;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Bad filters and operator names are refused at once, naming the field and its limit; nothing reaches the store. */
class ParkedFilterTest {
  @Test
  void badValuesNameTheFieldAndTheLimit() {
    assertThatThrownBy(() -> ParkedFilter.open().limit(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must be within [1, 10000], was 0");
    assertThatThrownBy(() -> ParkedFilter.open().limit(10_001)).hasMessage("limit must be within [1, 10000], was 10001");
    assertThatThrownBy(() -> ParkedFilter.open().olderThan(Duration.ofSeconds(-1)))
        .hasMessage("olderThan must be >= 0, was PT-1S");
    assertThatThrownBy(() -> ParkedFilter.open().aggregate(null, "o-1")).hasMessage("aggregateId needs aggregateType");
    assertThatThrownBy(() -> ParkedFilter.open().consumer("x".repeat(256)))
        .hasMessage("consumer must be 1–255 characters, was 256");
    assertThatThrownBy(() -> ParkedFilter.open().reasonContains("")).hasMessage("reasonContains must be 1–255 characters, was 0");
    assertThatThrownBy(() -> ParkedFilter.open().states(Set.of())).hasMessage("states must name at least one state");
    assertThat(ParkedFilter.open().states()).containsExactlyInAnyOrder(ParkedState.PARKED, ParkedState.REPLAYING);
    assertThat(ParkedFilter.any().states()).hasSize(4);
  }

  @Test
  void anOperatorNameMustBeShortPrintableText() {
    TwinboxAdmin admin = TwinboxAdmin.of(InMemoryStore.create());
    assertThatThrownBy(() -> admin.replayParked(1, " ")).hasMessage("by must be 1–255 non-blank characters, was 1 characters");
    assertThatThrownBy(() -> admin.discardParked(1, null)).hasMessageContaining("was null");
    assertThatThrownBy(() -> admin.discardParked(1, "a\u0000b")).hasMessageContaining("control characters");
    assertThatThrownBy(() -> admin.replayParked(1, "x".repeat(256))).hasMessageContaining("was 256 characters");
    assertThatThrownBy(() -> admin.replayParked(1, "alice")).isInstanceOf(ParkedMessageException.class)
        .hasMessage("no parked message with id 1");
  }

  @Test
  void anAdminWithoutAnInboxStoreSaysHowToGetOne() {
    InMemoryStore store = InMemoryStore.create();
    io.twinbox.spi.OutboxAdminStore outboxOnly = new io.twinbox.spi.OutboxAdminStore() {
      public OutboxStatus status() {
        return store.status();
      }

      public java.util.List<StoredEvent> troubled(String t, String at, String ai, int limit) {
        return store.troubled(t, at, ai, limit);
      }

      public int retry(EventSelector s) {
        return store.retry(s);
      }

      public int skip(EventSelector s) {
        return store.skip(s);
      }

      public int purgePublished(Duration age, int limit) {
        return store.purgePublished(age, limit);
      }
    };
    TwinboxAdmin admin = TwinboxAdmin.of(outboxOnly);
    assertThat(admin.hasParkedMessages()).isFalse();
    assertThatThrownBy(() -> admin.parked(ParkedFilter.open())).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("TwinboxAdmin.of(store, inboxStore)");
    assertThat(TwinboxAdmin.of(outboxOnly, store.inboxAdmin().orElseThrow()).parked(ParkedFilter.open())).isEmpty();
  }
}
