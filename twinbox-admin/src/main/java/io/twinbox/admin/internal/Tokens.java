package io.twinbox.admin.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The configured tokens, kept only as SHA-256 digests, and the check of a presented one. The
 * plaintext never reaches this class's fields: callers digest a token with {@link #digest} as soon
 * as it is configured. Comparing digests with {@link MessageDigest#isEqual} takes the same time
 * whatever the presented value and whatever its length, so timing tells an attacker nothing about
 * the tokens. Immutable.
 */
public final class Tokens {
  private static final String BEARER = "Bearer ";

  private final byte[] read;
  private final byte[] admin;

  /** @param readDigest {@link #digest} of the read token, or null; likewise {@code adminDigest} */
  public Tokens(byte[] readDigest, byte[] adminDigest) {
    this.read = readDigest == null ? null : readDigest.clone();
    this.admin = adminDigest == null ? null : adminDigest.clone();
  }

  /** The SHA-256 digest of a token, the only form in which the server keeps it. */
  public static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Whether two digests are equal, in constant time; false when either is null. */
  public static boolean same(byte[] a, byte[] b) {
    return a != null && b != null && MessageDigest.isEqual(a, b);
  }

  /** Whether any token is configured, i.e. whether the page and API are on. */
  public boolean enabled() {
    return read != null || admin != null;
  }

  /** Whether the admin (read-write) token is configured. */
  public boolean mutationsEnabled() {
    return admin != null;
  }

  /** The role of an {@code Authorization} header value; {@link Role#NONE} when absent or wrong. */
  public Role roleOf(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Role.NONE;
    }
    byte[] presented = digest(authorization.substring(BEARER.length()).strip());
    // Both comparisons run every time: which token matched must not show in the timing either.
    boolean isAdmin = same(admin, presented);
    boolean isRead = same(read, presented);
    return isAdmin ? Role.ADMIN : isRead ? Role.READ : Role.NONE;
  }
}
