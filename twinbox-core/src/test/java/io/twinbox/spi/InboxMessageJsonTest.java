package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.InboxMessage;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InboxMessageJsonTest {

  @Test
  void aMessageComesBackExactlyAndItsTextIsAsciiWhateverItHolds() {
    InboxMessage m = new InboxMessage("id-1", "T\u00e9", 3, "/src", "Order", "o-\u4e16", 7,
        "{\"a\":\"\u0000 \ud800 \ud83d\ude00\"}", Map.of("k", "v\u0000"), "corr", null, null,
        Instant.parse("2026-12-01T10:15:30.123456Z"), "orders-1");
    String json = InboxMessageJson.write(m);
    assertThat(json.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f)).as(json).isTrue();
    assertThat(InboxMessageJson.read(json)).isEqualTo(m);
  }

  @Test
  void aMessageWithoutOptionalFieldsComesBack() {
    InboxMessage m = new InboxMessage("x", "T", 1, null, null, null, 0, "", Map.of(), null, null, null, null, null);
    assertThat(InboxMessageJson.read(InboxMessageJson.write(m))).isEqualTo(m);
  }

  @Test
  void textThatIsNotAStoredMessageIsRefused() {
    assertThatThrownBy(() -> InboxMessageJson.read("[1]")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a stored inbox message");
  }
}
