package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hashes stored in every inbox must not change: the reused digest gives what a fresh one gives. */
class PayloadHashTest {
  private static String fresh(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private static InboxMessage message(String type, int version, String payload) {
    return new InboxMessage("m-1", type, version, null, null, null, 0, payload, Map.of(), null, null, null, null, null);
  }

  @Test
  void isSha256OfTypeVersionAndPayloadAsBefore() throws Exception {
    for (String payload : new String[] {"{}", "null", "{\"name\":\"Grüße, 世界 😀\"}", "x".repeat(100_000)}) {
      InboxMessage m = message("OrderPlaced", 12, payload);
      String expected = fresh(("OrderPlaced\n12\n" + payload).getBytes(StandardCharsets.UTF_8));
      assertThat(PayloadHash.of(m)).isEqualTo(expected);
      assertThat(PayloadHash.of(m)).as("the reused digest starts afresh").isEqualTo(expected);
    }
  }

  @Test
  void hexesBytesAndCharsAsBefore() throws Exception {
    byte[] bytes = {0, 1, (byte) 0x7f, (byte) 0x80, (byte) 0xff};
    assertThat(PayloadHash.sha256(bytes)).isEqualTo(fresh(bytes));
    assertThat(PayloadHash.sha256(new byte[0]))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(PayloadHash.sha256OfChars("a\uD800")).isEqualTo(fresh(new byte[] {0, 'a', (byte) 0xd8, 0}));
  }
}
