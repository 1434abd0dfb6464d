package io.twinbox.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.Inbox;
import io.twinbox.InboxConsumer;
import io.twinbox.spi.DeadLetterTransport;
import io.twinbox.spi.MessageSource;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** A consumer that is to forward parked messages needs a store that keeps the forwarded state. */
class InMemoryParkedForwardTest {

  @Test
  void aStoreWithoutAForwardedStateIsRefusedAtBuildTime() {
    InMemoryStore store = InMemoryStore.create();
    MessageSource source = (MessageSource) Proxy.newProxyInstance(MessageSource.class.getClassLoader(),
        new Class<?>[] {MessageSource.class}, (p, m, a) -> m.getName().equals("name") ? "test" : null);
    DeadLetterTransport dlq = RecordingTransport.acking().deadLetters().orElseThrow();
    assertThatThrownBy(() -> InboxConsumer.builder(source).inbox(Inbox.builder(store, "c").build(), store.dataSource())
        .handler((c, m) -> { }).deadLetters(dlq).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadLetters")
        .hasMessageContaining("InMemoryStore");
  }
}
