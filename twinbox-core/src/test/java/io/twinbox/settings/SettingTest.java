package io.twinbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.CompletionMode;
import io.twinbox.RelaySettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The catalogue mechanism: checks, texts, names, groups and rules. Pure logic. */
class SettingTest {
  @Test
  void checksNameTheSettingAndTheLimit() {
    assertThatThrownBy(() -> RelaySettings.BATCH_SIZE.check(0)).hasMessage("batchSize must be within [1, 10000], was 0");
    assertThatThrownBy(() -> RelaySettings.BATCH_SIZE.check(0, "twinbox.relay.batch-size"))
        .hasMessage("twinbox.relay.batch-size must be within [1, 10000], was 0");
    assertThatThrownBy(() -> RelaySettings.POLL_INTERVAL.check(Duration.ZERO)).hasMessage("pollInterval must be > 0, was 0s");
    assertThatThrownBy(() -> RelaySettings.LEASE_TTL.check(Duration.ofMillis(500)))
        .hasMessage("leaseTtl must be >= 1s, was 500ms");
    assertThatThrownBy(() -> RelaySettings.SOURCE.check(" ")).hasMessage("source must be 1–255 non-blank characters");
    assertThatThrownBy(() -> RelaySettings.SOURCE.check(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("source cannot be null");
  }

  @Test
  void secretsAndTextsAreNeverEchoed() {
    Setting<Integer> secret = Setting.integer("pin").range(1, 9).asSecret();
    assertThatThrownBy(() -> secret.check(1234)).hasMessage("pin must be within [1, 9]");
    assertThatThrownBy(() -> secret.parse("12x4")).hasMessage("pin must be a whole number, was '****'");
    Setting<String> uri = Setting.string("uri").length(5);
    assertThatThrownBy(() -> uri.check("amqp://u:pw@h")).hasMessageNotContaining("pw");
  }

  @Test
  void textIsParsedAndFormattedTheSameWayBothWays() {
    assertThat(RelaySettings.POLL_INTERVAL.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(RelaySettings.POLL_INTERVAL.parse("PT2S")).isEqualTo(Duration.ofSeconds(2));
    assertThat(RelaySettings.COMPLETION_MODE.parse("mark")).isEqualTo(CompletionMode.MARK);
    assertThatThrownBy(() -> RelaySettings.COMPLETION_MODE.parse("keep"))
        .hasMessage("completionMode must be one of DELETE, MARK, was 'keep'");
    for (Duration d : List.of(Duration.ofMillis(100), Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofDays(90),
        Duration.ofMillis(1500))) {
      assertThat(RelaySettings.POLL_INTERVAL.parse(RelaySettings.POLL_INTERVAL.format(d))).isEqualTo(d);
    }
    assertThat(RelaySettings.POLL_INTERVAL.format(Duration.ofDays(90))).isEqualTo("90d");
    assertThat(Setting.decimal("jitter").format(1.0)).isEqualTo("1");
    assertThat(RelaySettings.BATCH_SIZE.limits()).isEqualTo("1–10000");
    assertThat(RelaySettings.LEASE_TTL.limits()).isEqualTo("≥ 1s");
    assertThat(RelaySettings.POLL_INTERVAL.limits()).isEqualTo("> 0");
  }

  @Test
  void namesAreDerivedMechanically() {
    assertThat(Catalogue.kebab("retry.maxAttempts")).isEqualTo("retry.max-attempts");
    assertThat(Catalogue.dotted("retry.maxAttempts")).isEqualTo("retry.max.attempts");
    assertThat(RelaySettings.CATALOGUE.settings()).extracting(Setting::name).contains("batchSize", "retry.maxAttempts",
        "retry.initialDelay", "retry.maxDelay", "retry.multiplier", "retry.jitter");
    assertThatThrownBy(() -> Setting.integer("Batch_size")).hasMessageContaining("camelCase");
  }

  @Test
  void valuesAreCheckedAllAtOnceAndAGroupIsAppliedAsOneObject() {
    assertThat(RelaySettings.CATALOGUE.problems(Map.of("batchSize", 0, "workers", 65, "nope", 1), n -> "relay." + n))
        .containsExactlyInAnyOrder("relay.batchSize must be within [1, 10000], was 0",
            "relay.workers must be within [1, 64], was 65", "relay.nope is not a setting of Relay.Builder");
    SettingValues v = RelaySettings.CATALOGUE.values(Map.of("retry.maxAttempts", 3));
    assertThat(v.get("retry.maxAttempts")).isEqualTo(3);
    assertThat(v.get("retry.maxDelay")).isEqualTo(Duration.ofMinutes(5));
    assertThat(v.get(RelaySettings.BATCH_SIZE)).isEqualTo(500);
    assertThat(RelaySettings.CATALOGUE.applies("retry.jitter")).isTrue();
  }
}
