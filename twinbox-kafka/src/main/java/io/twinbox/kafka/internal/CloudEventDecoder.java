package io.twinbox.kafka.internal;

import io.twinbox.InboxMessage;
import io.twinbox.InvalidEventException;
import io.twinbox.spi.WireEvents;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a Kafka record written in CloudEvents binary content mode (the Kafka protocol binding:
 * {@code ce_<attribute>} headers, {@code content-type} for {@code datacontenttype}, the value as
 * data) into an {@link InboxMessage}, by the rules every consumer shares ({@link WireEvents}):
 * header values and data are decoded as strict UTF-8, a non-JSON content type is refused. Anything
 * refused becomes a failure with a reason, to be parked at once under the id
 * {@code kafka:<topic>-<partition>@<offset>}. Stateless and thread-safe.
 */
public final class CloudEventDecoder {
  private static final String PREFIX = "ce_";

  private CloudEventDecoder() {}

  public static String origin(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  public static WireEvents.Read decode(ConsumerRecord<String, byte[]> r) {
    String origin = origin(r);
    // The id of an unreadable record is its place in the log: a redelivery of it is recognised. Made
    // only for a record that is refused: the stand-in decodes the value once more.
    Supplier<InboxMessage> unreadable = () -> WireEvents.unreadable(WireEvents.placeId("kafka:", origin), r.value(),
        r.key(), origin);
    Map<String, String> attributes = new LinkedHashMap<>();
    Map<String, String> user = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      if (h.value() == null) {
        continue;
      }
      String key = h.key();
      String value;
      try {
        value = WireEvents.headerText(key, h.value());
      } catch (InvalidEventException e) {
        return new WireEvents.Read(unreadable.get(), "unreadable header: " + e.getMessage());
      }
      if (key.startsWith(PREFIX)) {
        attributes.put(key.substring(PREFIX.length()).toLowerCase(Locale.ROOT), value);
      } else if (key.equalsIgnoreCase("content-type")) {
        attributes.put(WireEvents.DATA_CONTENT_TYPE, value);
      } else {
        user.put(key, value);
      }
    }
    String contentType = attributes.get(WireEvents.DATA_CONTENT_TYPE);
    if (attributes.get(WireEvents.SPECVERSION) == null && contentType != null
        && contentType.toLowerCase(Locale.ROOT).startsWith("application/cloudevents")) {
      return new WireEvents.Read(unreadable.get(),
          "not a CloudEvent in binary content mode (structured mode is not supported)");
    }
    return WireEvents.read(attributes, r.value(), user, origin, unreadable);
  }
}
