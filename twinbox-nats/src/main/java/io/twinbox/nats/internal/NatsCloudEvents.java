package io.twinbox.nats.internal;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.twinbox.InboxMessage;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.WireAttributes;
import io.twinbox.spi.WireEvents;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The CloudEvents NATS protocol binding (binary content mode, binding version 1.0.3), mapped by
 * hand: every attribute, {@code datacontenttype} included, is a header {@code ce-<attribute>} whose
 * value is the attribute's canonical string, percent-encoded (space, {@code "}, {@code %} and every
 * character outside printable ASCII become {@code %XX} of their UTF-8 bytes, upper-case); the data
 * is the body. User headers keep their names; their values are percent-encoded the same way, since
 * NATS headers carry printable ASCII only. Stateless and thread-safe.
 */
public final class NatsCloudEvents {
  public static final String PREFIX = "ce-";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private NatsCloudEvents() {}

  /** The headers for {@code m}: its attributes ({@link WireAttributes}); {@code Nats-Msg-Id} is added by the publish options. */
  public static Headers headers(OutboxMessage m, URI source) {
    return headers(m, WireAttributes.of(m, source));
  }

  /** {@link #headers(OutboxMessage, URI)} with the given attributes (a dead letter's). */
  public static Headers headers(OutboxMessage m, Map<String, Object> attributes) {
    Headers h = new Headers();
    attributes.forEach((name, value) -> h.add(PREFIX + name, encode(WireAttributes.text(value))));
    if (m.headers() != null) {
      m.headers().forEach((k, v) -> h.add(k, encode(v)));
    }
    return h;
  }

  /**
   * Reads a JetStream message by the rules every consumer shares ({@link WireEvents}); header
   * values are percent-decoded to strict UTF-8. Anything refused is a failure, parked under the id
   * {@code nats:<stream>#<sequence>}.
   */
  public static WireEvents.Read decode(Message msg) {
    String origin = origin(msg);
    byte[] body = msg.getData() == null ? new byte[0] : msg.getData();
    // The id of an unreadable message is its place in the stream: a redelivery of it is recognised.
    Supplier<InboxMessage> unreadable = () -> WireEvents.unreadable(WireEvents.placeId("nats:", origin), body, null,
        origin); // made only for a message that cannot be read
    Map<String, String> ce = new HashMap<>(32); // room for every attribute without a resize
    Map<String, String> user = new LinkedHashMap<>();
    try {
      Headers headers = msg.getHeaders();
      if (headers != null) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
          String name = e.getKey().toLowerCase(Locale.ROOT);
          String value = e.getValue().isEmpty() ? null : decodeValue(e.getValue().get(0));
          if (name.startsWith(PREFIX)) {
            ce.put(name.substring(PREFIX.length()), value);
          } else if (value != null && !name.startsWith("nats-")) {
            user.put(e.getKey(), value);
          }
        }
      }
    } catch (IllegalArgumentException e) {
      return new WireEvents.Read(unreadable.get(), "unreadable header: " + e.getMessage());
    }
    return WireEvents.read(ce, body, user, origin, unreadable);
  }

  /** {@code <stream>#<stream sequence>}, or the subject for a message outside JetStream. */
  public static String origin(Message msg) {
    if (msg.isJetStream()) {
      NatsJetStreamMetaData md = msg.metaData();
      return md.getStream() + "#" + md.streamSequence();
    }
    return msg.getSubject();
  }

  /** Percent-encodes as the NATS binding requires. */
  public static String encode(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > ' ' && c < 0x7f && c != '"' && c != '%') {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(value.length() + 16).append(value, 0, i);
      }
      int cp = value.codePointAt(i);
      if (Character.charCount(cp) == 2) {
        i++;
      }
      for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
        out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
      }
    }
    return out == null ? value : out.toString();
  }

  /**
   * Undoes double-quoting (older senders) and one round of percent-encoding; invalid UTF-8 is
   * refused.
   *
   * @throws IllegalArgumentException for a malformed escape or invalid UTF-8
   */
  public static String decodeValue(String raw) {
    String v = raw.strip();
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      StringBuilder unq = new StringBuilder(v.length());
      for (int i = 1; i < v.length() - 1; i++) {
        char c = v.charAt(i);
        if (c == '\\' && i + 1 < v.length() - 1) {
          c = v.charAt(++i);
        }
        unq.append(c);
      }
      v = unq.toString();
    }
    if (v.indexOf('%') < 0) {
      return v;
    }
    ByteBuffer bytes = ByteBuffer.allocate(v.length() * 4);
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '%') {
        if (i + 2 >= v.length()) {
          throw new IllegalArgumentException("truncated percent escape");
        }
        int hi = Character.digit(v.charAt(i + 1), 16);
        int lo = Character.digit(v.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("malformed percent escape");
        }
        bytes.put((byte) ((hi << 4) | lo));
        i += 2;
      } else {
        bytes.put(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    bytes.flip();
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("percent-encoded bytes are not valid UTF-8");
    }
  }
}
