package io.twinbox.example;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.twinbox.InboxMessage;
import io.twinbox.UnprocessableMessageException;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The integration contracts between the two services (R4): three small, versioned events, each a
 * record of exactly what the other side needs — never a serialized entity. Shows a tolerant reader:
 * unknown fields are ignored (a producer may add some in a compatible v1), while a missing or
 * invalid required field, an unknown type or an unsupported version is an
 * {@link UnprocessableMessageException}, which the consumer parks at once instead of retrying.
 *
 * <p>Stateless and thread-safe.
 */
public final class Events {
  /** Type of the event the order service emits when an order is placed. */
  public static final String ORDER_CREATED = "OrderCreated";
  /** Type of the payment service's answer when the wallet was debited. */
  public static final String PAYMENT_CAPTURED = "PaymentCaptured";
  /** Type of the payment service's answer when it was not. */
  public static final String PAYMENT_DECLINED = "PaymentDeclined";
  /** The only contract version this example speaks. */
  public static final int VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
      .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);

  private Events() {}

  /** {@code OrderCreated} v1: an order was placed and awaits payment. */
  public record OrderCreated(UUID orderId, String customerId, long amountCents) {
    public OrderCreated {
      requireFields(orderId, customerId, amountCents);
    }
  }

  /**
   * The payment service's answer, {@code PaymentCaptured} or {@code PaymentDeclined} v1 (same
   * shape; {@code reason} is {@code null} for a capture).
   */
  public record PaymentResult(UUID orderId, String customerId, long amountCents, String reason) {
    public PaymentResult {
      requireFields(orderId, customerId, amountCents);
    }
  }

  /** The JSON text of a contract record. */
  public static String toJson(Record event) {
    try {
      return JSON.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + event.getClass().getSimpleName(), e);
    }
  }

  /** Reads an {@code OrderCreated} v1, or throws {@link UnprocessableMessageException}. */
  public static OrderCreated orderCreated(InboxMessage message) {
    requireContract(message, ORDER_CREATED);
    return read(message, OrderCreated.class);
  }

  /** Reads a {@code PaymentCaptured} or {@code PaymentDeclined} v1, or throws {@link UnprocessableMessageException}. */
  public static PaymentResult paymentResult(InboxMessage message) {
    if (!PAYMENT_CAPTURED.equals(message.type()) && !PAYMENT_DECLINED.equals(message.type())) {
      throw new UnprocessableMessageException("unexpected event type " + message.type() + " on the payments topic");
    }
    requireContract(message, message.type());
    return read(message, PaymentResult.class);
  }

  private static void requireContract(InboxMessage message, String type) {
    if (!type.equals(message.type())) {
      throw new UnprocessableMessageException("expected " + type + ", got " + message.type());
    }
    if (message.version() != VERSION) {
      throw new UnprocessableMessageException(type + " version " + message.version() + " is not supported (only v"
          + VERSION + ")");
    }
  }

  private static <T> T read(InboxMessage message, Class<T> contract) {
    try {
      return JSON.readValue(message.payload(), contract);
    } catch (JsonProcessingException e) {
      throw new UnprocessableMessageException(message.type() + " v" + message.version() + " payload is invalid: "
          + describe(e));
    }
  }

  /** Names the field and the kind of problem, never a value: payloads may carry personal data. */
  private static String describe(JsonProcessingException e) {
    if (e.getCause() instanceof IllegalArgumentException own) {
      return own.getMessage(); // from requireFields: our own words
    }
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      String field = m.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining("."));
      return "field " + field + " (" + e.getClass().getSimpleName() + ")";
    }
    return e instanceof JsonParseException ? "not well-formed JSON" : e.getClass().getSimpleName();
  }

  private static void requireFields(UUID orderId, String customerId, long amountCents) {
    if (orderId == null) {
      throw new IllegalArgumentException("orderId is missing");
    }
    if (customerId == null || customerId.isBlank()) {
      throw new IllegalArgumentException("customerId is missing");
    }
    if (amountCents <= 0) {
      throw new IllegalArgumentException("amountCents must be > 0, was " + amountCents);
    }
  }
}
