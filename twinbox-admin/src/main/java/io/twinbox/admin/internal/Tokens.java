package io.twinbox.admin.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The configured tokens, kept only as SHA-256 digests, and the check of a presented one. Comparing
 * digests with {@link MessageDigest#isEqual} takes the same time whatever the presented value and
 * whatever its length, so timing tells an attacker nothing about the tokens. Immutable.
 */
public final class Tokens {
  private static final String BEARER = "Bearer ";

  private final byte[] read;
  private final byte[] admin;

  public Tokens(String readToken, String adminToken) {
    this.read = readToken == null ? null : sha256(readToken);
    this.admin = adminToken == null ? null : sha256(adminToken);
  }

  /** Whether any token is configured, i.e. whether the page and API are on. */
  public boolean enabled() {
    return read != null || admin != null;
  }

  /** The role of an {@code Authorization} header value; {@link Role#NONE} when absent or wrong. */
  public Role roleOf(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Role.NONE;
    }
    byte[] presented = sha256(authorization.substring(BEARER.length()).strip());
    // Both comparisons run every time: which token matched must not show in the timing either.
    boolean isAdmin = admin != null && MessageDigest.isEqual(admin, presented);
    boolean isRead = read != null && MessageDigest.isEqual(read, presented);
    return isAdmin ? Role.ADMIN : isRead ? Role.READ : Role.NONE;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
