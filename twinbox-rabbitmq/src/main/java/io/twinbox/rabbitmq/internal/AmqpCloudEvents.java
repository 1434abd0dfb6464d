package io.twinbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.WireAttributes;
import io.twinbox.spi.WireEvents;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The CloudEvents AMQP protocol binding (binary content mode), mapped by hand onto AMQP 0-9-1:
 * every attribute but {@code datacontenttype} is a header (AMQP 1.0 application property, which
 * RabbitMQ maps to 0-9-1 headers) named {@code cloudEvents:<attribute>}; {@code datacontenttype} is
 * the {@code content-type} property; the data is the body. The CloudEvents SDK has no binding for
 * the RabbitMQ Java client, hence this class. Readers accept the {@code cloudEvents_} separator too,
 * as binding version 1.0.3 allows. Stateless and thread-safe.
 */
public final class AmqpCloudEvents {
  /** The prefix written, from the released binding (1.0.2) that the CloudEvents SDKs implement. */
  public static final String PREFIX = "cloudEvents:";
  private static final String ALT_PREFIX = "cloudEvents_";
  /** Persistent: written to disk by the broker before it confirms (to a durable queue). */
  public static final int PERSISTENT = 2;

  private AmqpCloudEvents() {}

  /** A message ready for {@code basicPublish}. */
  public record Encoded(AMQP.BasicProperties properties, byte[] body) {}

  /**
   * The message's attributes ({@link WireAttributes}) as {@code cloudEvents:} headers, but {@code
   * datacontenttype} as the {@code content-type} property; CloudEvents Integer becomes an AMQP long,
   * everything else its canonical string. The user's headers keep their names.
   */
  public static Encoded encode(OutboxMessage m, URI source) {
    return encode(m, WireAttributes.of(m, source));
  }

  /** {@link #encode(OutboxMessage, URI)} with the given attributes (a dead letter's). */
  public static Encoded encode(OutboxMessage m, Map<String, Object> attributes) {
    Map<String, Object> h = new LinkedHashMap<>();
    attributes.forEach((name, value) -> {
      if (!name.equals(WireEvents.DATA_CONTENT_TYPE)) {
        h.put(PREFIX + name, value instanceof Integer n ? (Object) n.longValue() : WireAttributes.text(value));
      }
    });
    if (m.headers() != null) {
      h.putAll(m.headers());
    }
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .contentType(String.valueOf(attributes.getOrDefault(WireEvents.DATA_CONTENT_TYPE, WireAttributes.JSON)))
        .deliveryMode(PERSISTENT)
        .messageId(String.valueOf(attributes.getOrDefault(WireEvents.ID, m.id())))
        .timestamp(m.occurredAt() == null ? null : Date.from(m.occurredAt()))
        .headers(h)
        .build();
    return new Encoded(props, m.payload().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Reads a delivery by the rules every consumer shares ({@link WireEvents}): header values
   * and body as strict UTF-8, {@code content-type} as {@code datacontenttype}. Anything refused
   * becomes a failure with a reason, to be parked at once; its inbox id is {@code rabbitmq:} plus
   * the AMQP message id, or plus a hash of the body, so that its redeliveries are recognised (a
   * different message reusing that message id is parked under an id of its own by the runner).
   */
  public static WireEvents.Read decode(AMQP.BasicProperties props, byte[] body, String origin) {
    Supplier<InboxMessage> unreadable = () -> unreadable(props.getMessageId(), body, origin);
    Map<String, Object> headers = props.getHeaders() == null ? Map.of() : props.getHeaders();
    Map<String, String> ce = new HashMap<>(32); // room for every attribute without a resize
    Map<String, String> user = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : headers.entrySet()) {
      String k = e.getKey();
      String v;
      try {
        v = text(k, e.getValue());
      } catch (InvalidEventException ex) {
        return new WireEvents.Read(unreadable.get(), "unreadable header: " + ex.getMessage());
      }
      if (k.startsWith(PREFIX) || k.startsWith(ALT_PREFIX)) {
        ce.put(k.substring(PREFIX.length()).toLowerCase(Locale.ROOT), v);
      } else if (v != null && !brokerHeader(k)) {
        user.put(k, v);
      }
    }
    ce.remove(WireEvents.DATA_CONTENT_TYPE); // the binding carries it as the content-type property
    if (props.getContentType() != null) {
      ce.put(WireEvents.DATA_CONTENT_TYPE, props.getContentType());
    }
    return WireEvents.read(ce, body, user, origin, unreadable);
  }

  /** The stand-in to park for a delivery that cannot be read; made only then. */
  private static InboxMessage unreadable(String messageId, byte[] body, String origin) {
    String id = messageId != null ? WireEvents.placeId("rabbitmq:", messageId) : WireEvents.contentId("rabbitmq:", body);
    return WireEvents.unreadable(id, body, null, origin);
  }

  private static boolean brokerHeader(String name) {
    String k = name.toLowerCase(Locale.ROOT);
    return k.startsWith("x-death") || k.startsWith("x-first-death") || k.startsWith("x-last-death")
        || k.startsWith("x-delivery-") || k.equals("x-delivery-count");
  }

  /**
   * Header values arrive as {@link LongString} for text (decoded as strict UTF-8); numbers and
   * timestamps as themselves.
   *
   * @throws InvalidEventException when text is not valid UTF-8
   */
  static String text(String name, Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof LongString || v instanceof byte[]) {
      byte[] bytes = v instanceof LongString ls ? ls.getBytes() : (byte[]) v;
      return WireEvents.headerText(name, bytes);
    }
    if (v instanceof Date d) {
      return d.toInstant().toString();
    }
    return v.toString();
  }
}
