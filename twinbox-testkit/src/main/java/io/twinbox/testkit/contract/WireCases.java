package io.twinbox.testkit.contract;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CloudEvents as they may arrive from another producer, good and bad, independent of the binding:
 * every consumer's decoder must accept and refuse the same ones (issue 22). A broker module's test
 * writes each case in its own binding (attribute {@code x} as Kafka's {@code ce_x} header, AMQP's
 * {@code cloudEvents:x}, NATS's percent-encoded {@code ce-x}; {@code datacontenttype} as the
 * binding carries it) and decodes it.
 *
 * <p>Attribute and header values are raw bytes, so that a case can hold invalid UTF-8.
 */
public final class WireCases {
  private WireCases() {}

  /**
   * One message.
   *
   * @param attributes CloudEvents attributes by name, {@code datacontenttype} included
   * @param headers user headers
   * @param data the body
   * @param accepted whether a decoder must accept it
   */
  public record Case(String name, Map<String, byte[]> attributes, Map<String, byte[]> headers, byte[] data,
      boolean accepted) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A complete, good event with id {@code id}. */
  public static Map<String, byte[]> goodAttributes(String id) {
    Map<String, byte[]> a = new LinkedHashMap<>();
    a.put("specversion", utf8("1.0"));
    a.put("id", utf8(id));
    a.put("source", utf8("/orders"));
    a.put("type", utf8("OrderPlaced"));
    a.put("subject", utf8("o-1"));
    a.put("time", utf8("2026-12-01T10:15:30.123Z"));
    a.put("datacontenttype", utf8("application/json"));
    a.put("aggregatetype", utf8("Order"));
    a.put("sequence", utf8("3"));
    a.put("dataversion", utf8("2"));
    a.put("correlationid", utf8("corr-1"));
    a.put("traceparent", utf8("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    return a;
  }

  private static final byte[] INVALID_UTF8 = {'"', 'a', (byte) 0xff, 'b', '"'};

  public static List<Case> all() {
    List<Case> cases = new ArrayList<>();
    byte[] json = utf8("{\"total\":1}");
    cases.add(new Case("good", goodAttributes("w-good"), Map.of("tenant", utf8("acme é")), json, true));
    cases.add(with("only the required attributes", "w-minimal", json, true, a -> {
      a.keySet().retainAll(List.of("specversion", "id", "source", "type"));
    }));
    for (String required : List.of("specversion", "id", "source", "type")) {
      cases.add(with("no " + required, "w-no-" + required, json, false, a -> a.remove(required)));
    }
    cases.add(with("specversion 0.3", "w-v03", json, false, a -> a.put("specversion", utf8("0.3"))));
    cases.add(with("a 300-character id", "w-long-id", json, false, a -> a.put("id", utf8("i".repeat(300)))));
    cases.add(with("NUL in the id", "w-nul-id", json, false, a -> a.put("id", utf8("w-\u0000-id"))));
    cases.add(with("a source that is no URI", "w-bad-source", json, false, a -> a.put("source", utf8("not a uri"))));
    cases.add(with("dataversion abc", "w-dv-abc", json, false, a -> a.put("dataversion", utf8("abc"))));
    cases.add(with("dataversion 0", "w-dv-0", json, false, a -> a.put("dataversion", utf8("0"))));
    cases.add(with("sequence x", "w-seq-x", json, false, a -> a.put("sequence", utf8("x"))));
    cases.add(with("sequence -1", "w-seq-neg", json, false, a -> a.put("sequence", utf8("-1"))));
    cases.add(with("time yesterday", "w-time", json, false, a -> a.put("time", utf8("yesterday"))));
    cases.add(with("datacontenttype text/plain", "w-ct-text", json, false,
        a -> a.put("datacontenttype", utf8("text/plain"))));
    cases.add(with("datacontenttype application/xml", "w-ct-xml", utf8("<a/>"), false,
        a -> a.put("datacontenttype", utf8("application/xml"))));
    cases.add(with("datacontenttype with a charset", "w-ct-charset", json, true,
        a -> a.put("datacontenttype", utf8("application/json; charset=utf-8"))));
    cases.add(with("a +json media type", "w-ct-plus", json, true,
        a -> a.put("datacontenttype", utf8("application/vnd.orders+json"))));
    cases.add(with("invalid UTF-8 in the data", "w-data-utf8", INVALID_UTF8, false, a -> {}));
    cases.add(with("a NUL byte in the data", "w-data-nul", new byte[] {'{', 0, '}'}, false, a -> {}));
    cases.add(with("an escaped NUL in JSON data", "w-data-esc", utf8("{\"a\":\"\\u0000\"}"), true, a -> {}));
    cases.add(with("data that is not JSON", "w-data-text", utf8("hello"), false, a -> {}));
    cases.add(with("no data", "w-data-none", new byte[0], true, a -> {}));
    cases.add(with("overlong attributes other than the id", "w-long-attrs", json, true, a -> {
      for (String name : List.of("type", "subject", "aggregatetype", "correlationid", "causationid")) {
        a.put(name, utf8("x".repeat(300)));
      }
      a.put("traceparent", utf8("t".repeat(70)));
    }));
    cases.add(with("invalid UTF-8 in an attribute", "w-attr-utf8", json, false,
        a -> a.put("type", INVALID_UTF8)));
    Map<String, byte[]> badHeader = new LinkedHashMap<>();
    badHeader.put("tenant", INVALID_UTF8);
    cases.add(new Case("invalid UTF-8 in a user header", goodAttributes("w-header-utf8"), badHeader, json, false));
    return cases;
  }

  private interface Edit {
    void apply(Map<String, byte[]> attributes);
  }

  private static Case with(String name, String id, byte[] data, boolean accepted, Edit edit) {
    Map<String, byte[]> a = goodAttributes(id);
    edit.apply(a);
    return new Case(name, a, Map.of(), data, accepted);
  }
}
