package io.twinbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxMessage;
import io.twinbox.internal.Headers;
import io.twinbox.internal.InboxColumns;
import io.twinbox.internal.InboxIds;
import io.twinbox.internal.StorableText;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whatever a message holds, its parked row fits the columns and says what was changed. */
class ParkedRowTest {
  private static final String HASH = "a".repeat(64);

  private static InboxMessage message(String id, String type, String aggregateId, String payload,
      Map<String, String> headers, String traceparent) {
    return new InboxMessage(id, type, 1, "/s", "T", aggregateId, 1, payload, headers, null, null, traceparent, null,
        "o");
  }

  @Test
  void aCleanMessageIsStoredVerbatim() {
    ParkedRow row = ParkedRow.of(message("m1", "T", "a1", "{}", Map.of("h", "v"), null), HASH, "why", 2, 1_000);
    assertThat(row.reason()).isEqualTo("why");
    assertThat(row.headersJson()).isEqualTo("{\"h\":\"v\"}");
    assertThat(row.payload()).isEqualTo("{}");
  }

  @Test
  void textIsClippedAtACodePointAndNulIsMapped() {
    String emoji = "\uD83D\uDE00"; // two chars, one code point
    String aggregateId = "a".repeat(254) + emoji; // 256 chars: a clip at 255 would split the pair
    ParkedRow row = ParkedRow.of(message("m1", "T\u0000x", aggregateId, "{}", Map.of(), "t".repeat(70)), HASH,
        "why", 1, 1_000);
    assertThat(row.aggregateId()).isEqualTo("a".repeat(254));
    assertThat(row.type()).isEqualTo("T\u2400x");
    assertThat(row.traceparent()).hasSize(InboxColumns.TRACEPARENT);
    assertThat(row.reason()).startsWith("why [stored: ")
        .contains("aggregate_id clipped from 256 to 254 characters")
        .contains("traceparent clipped from 70 to 55 characters")
        .contains("NUL mapped to U+2400 (unpaired surrogates to U+FFFD) in type");
  }

  @Test
  void aPayloadHoldingNulIsKeptExactlyAsBase64AndHeadersAreMapped() {
    ParkedRow row = ParkedRow.of(message("m1", "T", null, "a\u0000b", Map.of("k\u0000", "\uD800"), null), HASH,
        "why", 1, 1_000);
    assertThat(row.payload()).isEqualTo("base64:" + Base64.getEncoder().encodeToString(
        "a\u0000b".getBytes(StandardCharsets.UTF_8)));
    assertThat(row.headersJson()).isEqualTo("{\"k\u2400\":\"\uFFFD\"}");
    assertThat(StorableText.isClean(row.reason())).isTrue();
  }

  @Test
  void aPayloadBeyondTheStatementLimitIsLeftOutAndHeadersKeptWhileTheyFit() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      headers.put("h" + i, "v".repeat(10_000));
    }
    ParkedRow row = ParkedRow.of(message("m1", "T", null, "\"" + "x".repeat(2_000) + "\"", headers, null), HASH,
        "why", 1, 1_000);
    assertThat(row.payload()).isNull();
    assertThat(row.headersJson().getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(InboxColumns.HEADERS_BYTES);
    assertThat(row.reason()).contains("payload of 2002 bytes not stored").contains("headers: 6 of 10 stored");
  }

  @Test
  void manySmallHeadersAreKeptWhileTheyFitInLinearTime() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 100_000; i++) {
      headers.put("h" + i, "v");
    }
    ParkedRow row = ParkedRow.of(message("m1", "T", null, "{}", headers, null), HASH, "why", 1, 1_000);
    int size = row.headersJson().getBytes(StandardCharsets.UTF_8).length;
    assertThat(size).isLessThanOrEqualTo(InboxColumns.HEADERS_BYTES).isGreaterThan(InboxColumns.HEADERS_BYTES - 20);
    assertThat(Headers.fromJson(row.headersJson())).hasSizeGreaterThan(5_000).containsValue("v");
  }

  @Test
  void theReasonFitsItsColumnWhateverItsLength() {
    ParkedRow row = ParkedRow.of(message("m1", "T".repeat(300), null, "{}", Map.of(), null), HASH,
        "x".repeat(5_000), 1, 1_000);
    assertThat(row.reason()).hasSize(InboxColumns.REASON).endsWith("type clipped from 300 to 255 characters]");
    ParkedRow minimal = row.minimal("full row refused: SQLSTATE 23514");
    assertThat(minimal.reason()).hasSizeLessThanOrEqualTo(InboxColumns.REASON)
        .endsWith("[full row refused: SQLSTATE 23514; stored without the message's fields]");
    assertThat(minimal.type()).isNull();
    assertThat(minimal.payload()).isNull();
    assertThat(minimal.messageId()).isEqualTo("m1");
    assertThat(minimal.payloadHash()).isEqualTo(HASH);
  }

  @Test
  void derivedIdsFitAndAreDeterministic() {
    String taken = InboxIds.taken("x".repeat(255), HASH);
    assertThat(taken).hasSize(InboxColumns.ID).endsWith("#" + HASH).isEqualTo(InboxIds.taken("x".repeat(255), HASH));
    assertThat(InboxIds.storable("a\u0000b")).isFalse();
    assertThat(InboxIds.standIn("a\u0000b")).startsWith("a\u2400b#").isNotEqualTo(InboxIds.standIn("a\u2400b"));
    assertThat(InboxIds.synthetic("kafka:", "t-0@1")).isEqualTo("kafka:t-0@1");
    assertThat(InboxIds.synthetic("kafka:", "t".repeat(300) + "-0@1")).startsWith("kafka:sha256:").hasSize(6 + 7 + 64);
  }
}
