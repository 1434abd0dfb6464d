package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InvalidEventException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The fast UTF-8 path accepts, refuses and words exactly what the strict decoder does. */
class WireEventsUtf8Test {
  /** What the strict decoder makes of {@code bytes}: the text, or the failure's message. */
  private static String strict(byte[] bytes) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      return "ok:" + d.decode(in);
    } catch (CharacterCodingException e) {
      return "data: is not valid UTF-8 (near byte " + in.position() + ")";
    }
  }

  private static String actual(byte[] bytes) {
    try {
      return "ok:" + WireEvents.utf8("data", bytes);
    } catch (InvalidEventException e) {
      return e.getMessage();
    }
  }

  @Test
  void agreesWithTheStrictDecoder() {
    SplittableRandom r = new SplittableRandom(16);
    byte[][] pieces = {"a".getBytes(StandardCharsets.UTF_8), "é".getBytes(StandardCharsets.UTF_8),
      "\uFFFD".getBytes(StandardCharsets.UTF_8), "😀".getBytes(StandardCharsets.UTF_8), {(byte) 0xff},
      {(byte) 0xc0, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xe2, (byte) 0x82}, {0},
      {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}};
    for (int i = 0; i < 50_000; i++) {
      ByteBuffer b = ByteBuffer.allocate(64);
      int n = r.nextInt(8);
      for (int k = 0; k < n; k++) {
        byte[] p = i % 2 == 0 ? pieces[r.nextInt(pieces.length)] : new byte[] {(byte) r.nextInt(256)};
        b.put(p);
      }
      byte[] bytes = Arrays.copyOf(b.array(), b.position());
      assertThat(actual(bytes)).isEqualTo(strict(bytes));
    }
  }
}
