package io.twinbox.internal;

import io.twinbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 over what makes a message's content: type, version and payload. */
public final class PayloadHash {
  private PayloadHash() {}

  public static String of(InboxMessage m) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(m.type().getBytes(StandardCharsets.UTF_8));
      d.update((byte) '\n');
      d.update(Integer.toString(m.version()).getBytes(StandardCharsets.UTF_8));
      d.update((byte) '\n');
      d.update(m.payload().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
