package io.twinbox.internal;

import io.twinbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 over what makes a message's content: type, version and payload. One digest per thread:
 * {@code MessageDigest.getInstance} (a provider lookup) cost more than hashing a small payload.
 */
public final class PayloadHash {
  private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(PayloadHash::newDigest);
  private static final HexFormat HEX = HexFormat.of();

  private PayloadHash() {}

  public static String of(InboxMessage m) {
    MessageDigest d = digest();
    d.update(m.type().getBytes(StandardCharsets.UTF_8));
    d.update((byte) '\n');
    d.update(Integer.toString(m.version()).getBytes(StandardCharsets.UTF_8));
    d.update((byte) '\n');
    d.update(m.payload().getBytes(StandardCharsets.UTF_8));
    return HEX.formatHex(d.digest());
  }

  /** Hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
    return HEX.formatHex(digest().digest(bytes));
  }

  /**
   * Hex SHA-256 of the UTF-16 code units of {@code s}: exact even for text that has no UTF-8 form
   * (an unpaired surrogate), where {@code getBytes(UTF_8)} would substitute {@code ?}.
   */
  public static String sha256OfChars(String s) {
    byte[] units = new byte[s.length() * 2];
    for (int i = 0; i < s.length(); i++) {
      units[2 * i] = (byte) (s.charAt(i) >> 8);
      units[2 * i + 1] = (byte) s.charAt(i);
    }
    return sha256(units);
  }

  /** This thread's digest, reset ({@code digest()} resets it after each use; a failed use may not have). */
  private static MessageDigest digest() {
    MessageDigest d = DIGEST.get();
    d.reset();
    return d;
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
