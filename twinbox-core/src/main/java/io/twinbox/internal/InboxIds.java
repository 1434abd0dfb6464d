package io.twinbox.internal;

/**
 * Ids the inbox records when a message's own id cannot be used. Each is derived from what arrived,
 * so a redelivery of the same message maps to the same id and is recognised; each fits
 * {@link InboxColumns#ID} and is {@link StorableText#isClean clean}. Stateless.
 */
public final class InboxIds {
  /** "#" and a hex SHA-256. */
  private static final int SUFFIX = 1 + 64;

  private InboxIds() {}

  /**
   * For a message whose id already belongs to a different message (a reused id, or a synthetic id
   * such as Kafka's {@code kafka:<topic>-<partition>@<offset>} after the topic was recreated):
   * the id and the message's payload hash.
   */
  public static String taken(String id, String payloadHash) {
    return StorableText.clip(id, InboxColumns.ID - SUFFIX) + "#" + payloadHash;
  }

  /** True when the inbox can record {@code id} as it is. */
  public static boolean storable(String id) {
    return StorableText.isClean(id) && id.length() <= InboxColumns.ID;
  }

  /** For an id no database stores (NUL, an unpaired surrogate): its visible form and the hash of the exact id. */
  public static String standIn(String id) {
    return StorableText.clip(id, InboxColumns.ID - SUFFIX) + "#" + PayloadHash.sha256OfChars(id);
  }

  /**
   * The id of a wire message that is unreadable: {@code prefix} and where it was ({@code place},
   * e.g. {@code orders-3@1234}), or {@code prefix} and {@code sha256:} of the place when that is
   * too long or not clean text.
   */
  public static String synthetic(String prefix, String place) {
    String id = prefix + place;
    if (StorableText.isClean(id) && id.length() <= InboxColumns.ID && !id.isBlank()) {
      return id;
    }
    return prefix + "sha256:" + PayloadHash.sha256OfChars(place);
  }
}
