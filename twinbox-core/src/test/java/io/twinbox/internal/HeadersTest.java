package io.twinbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.twinbox.InvalidEventException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Stored headers decode strictly: a JSON object of strings, or a typed error saying what it is. */
class HeadersTest {

  @Test
  void anObjectOfStringsDecodesInOrder() {
    assertThat(Headers.fromJson("{}")).isEmpty();
    assertThat(Headers.fromJson(" { \"b\" : \"2\", \"a\":\"1\" } ")).containsExactly(Map.entry("b", "2"),
        Map.entry("a", "1"));
    assertThat(Headers.fromJson(Headers.toJson(Map.of("x-a", "v\"\\"))))
        .containsExactly(Map.entry("x-a", "v\"\\"));
  }

  @Test
  void everythingElseIsRefusedNamingTheHeadersAndWhatWasFound() {
    String[][] cases = {
      {"null", "is a JSON null, not a JSON object"}, {"[]", "is a JSON array"}, {"5", "is a JSON number"},
      {"\"x\"", "is a JSON string"}, {"true", "is a JSON boolean"}, {"", "empty"},
      {"{\"a\":{\"b\":1}}", "a value that is a JSON object"}, {"{\"a\":1}", "a value that is a JSON number"},
      {"{\"a\":null}", "a value that is a JSON null"}, {"{\"a\":\"x\",\"a\":\"y\"}", "a name twice"},
      {"{\"a\":\"x\"} {}", "trailing content"}, {"{\"a\":", "not valid JSON"}, {"{a:1}", "not valid JSON"},
    };
    for (String[] c : cases) {
      Throwable t = catchThrowable(() -> Headers.fromJson(c[0]));
      assertThat(t).as(c[0]).isInstanceOf(InvalidEventException.class).hasMessageContaining(c[1]);
      assertThat(((InvalidEventException) t).field()).isEqualTo("headers");
    }
    assertThat(catchThrowable(() -> Headers.fromJson(null))).isInstanceOf(InvalidEventException.class);
  }
}
