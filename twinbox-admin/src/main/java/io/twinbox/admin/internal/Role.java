package io.twinbox.admin.internal;

/** Who a request is, as far as the server knows: by the token it presented. */
public enum Role {
  /** No token, or one that matches neither configured token. */
  NONE,
  /** The read token: the page and the read API. */
  READ,
  /** The admin token: reads and mutations. */
  ADMIN;

  /** The name in audit lines and API answers. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
