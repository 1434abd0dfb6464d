package io.twinbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.contract.SettingSamples;
import io.twinbox.settings.Catalogue;
import io.twinbox.settings.Setting;
import io.twinbox.spi.InboxStore;
import io.twinbox.spi.OutboxStore;
import io.twinbox.spi.Transport;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4 of issue 16, the builder side: every builder's defaults and limits are its
 * catalogue's. For each setting that the built object reports ({@code config()}), the default
 * built with no settings equals the catalogue's default, a value applied through the catalogue
 * arrives, and a value out of range is refused with the catalogue's message. No server: the store
 * and transport are never called.
 */
class BuilderSettingsAgreementTest {
  private static final OutboxStore STORE = unused(OutboxStore.class);
  private static final Transport TRANSPORT = unused(Transport.class);

  @Test
  void theRelayBuildersDefaultsAndLimitsAreItsCatalogues() {
    agree(RelaySettings.CATALOGUE, () -> Relay.builder(STORE, TRANSPORT), b -> b.build().config());
  }

  @Test
  void theOutboxBuildersDefaultsAndLimitsAreItsCatalogues() {
    agree(OutboxSettings.CATALOGUE, () -> Outbox.builder(STORE), b -> b.build().config());
  }

  @Test
  void theInboxBuildersDefaultsAndLimitsAreItsCatalogues() {
    // A store that keeps the ordering guard: the catalogue sets every ordering, and build() asks for it.
    agree(InboxSettings.CATALOGUE, () -> Inbox.builder(io.twinbox.testing.InMemoryStore.create(), "c"),
        b -> b.build().config());
  }

  @Test
  void theRetryPolicysDefaultsAreItsSettings() {
    agree(RetryPolicy.settings(RetryPolicy.ofDefaults()), RetryPolicy::builder, RetryPolicy.Builder::build);
    assertThat(RetryPolicy.settings(InboxConsumerSettings.DEFAULT_RETRY).setting("maxAttempts").defaultValue())
        .isEqualTo(InboxConsumerSettings.DEFAULT_RETRY.maxAttempts());
  }

  @Test
  void healthsDefaultIsItsSetting() {
    assertThat(new Health(unused(io.twinbox.spi.OutboxAdminStore.class)).maxOldestPendingAge())
        .isEqualTo(HealthSettings.MAX_OLDEST_PENDING_AGE.defaultValue());
    assertThatThrownBy(() -> new Health(unused(io.twinbox.spi.OutboxAdminStore.class), Duration.ZERO))
        .hasMessage("maxOldestPendingAge must be > 0, was 0s");
  }

  @Test
  void crossSettingRulesAreTheBuildersToo() {
    assertThatThrownBy(() -> Inbox.builder(unused(InboxStore.class), "c").retention(Duration.ofDays(1)).build())
        .hasMessageStartingWith("retention (1d) must not be shorter than redeliveryHorizon (8d)");
    assertThatThrownBy(() -> RetryPolicy.builder().initialDelay(Duration.ofMinutes(10)).build())
        .hasMessage("initialDelay (10m) must not exceed maxDelay (5m)");
    assertThat(RelaySettings.CATALOGUE.problems(Map.of("retry.initialDelay", Duration.ofMinutes(10)),
        n -> "relay." + n)).containsExactly("relay.retry.initialDelay (10m) must not exceed relay.retry.maxDelay (5m)");
  }

  /** For each setting the built object shows: default, applied value and refused value agree with the catalogue. */
  private static <B, C> void agree(Catalogue<B> catalogue, java.util.function.Supplier<B> builder, Function<B, C> build) {
    C defaults = build.apply(builder.get());
    int compared = 0;
    for (Setting<?> s : catalogue.settings()) {
      Object shown = read(defaults, s.name());
      if (shown == NOT_SHOWN) {
        continue;
      }
      compared++;
      if (s.defaultValue() != null) {
        assertThat(shown).as(catalogue.prefix() + "." + s.name() + " default").isEqualTo(s.defaultValue());
      }
      Object sample = SettingSamples.valid(s);
      if (sample != null && catalogue.applies(s.name())) {
        B b = catalogue.apply(builder.get(), catalogue.values(Map.of(s.name(), sample)));
        assertThat(read(build.apply(b), s.name())).as(catalogue.prefix() + "." + s.name() + " applied").isEqualTo(sample);
      }
      Object bad = SettingSamples.invalid(s);
      Method setter = setter(builder.get().getClass(), s.name());
      if (bad != null && setter != null) {
        String expected = message(s, bad);
        assertThatThrownBy(() -> {
          try {
            setter.invoke(builder.get(), bad);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        }).as(catalogue.prefix() + "." + s.name() + " refused").isInstanceOf(IllegalArgumentException.class)
            .hasMessage(expected);
      }
    }
    assertThat(compared).as("settings compared in " + catalogue.prefix()).isPositive();
  }

  /** The catalogue's own message for {@code bad}. */
  @SuppressWarnings("unchecked")
  private static String message(Setting<?> s, Object bad) {
    try {
      ((Setting<Object>) s).check(bad);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError(s.name() + ": " + bad + " should be out of range");
  }

  /** The builder's public one-argument method named like the setting, if any. */
  private static Method setter(Class<?> type, String name) {
    for (Method m : type.getMethods()) {
      if (m.getName().equals(name) && m.getParameterCount() == 1) {
        return m;
      }
    }
    return null;
  }

  private static final Object NOT_SHOWN = new Object();

  /** {@code retry.maxAttempts} on a relay config is {@code retryPolicy().maxAttempts()}. */
  private static Object read(Object config, String path) {
    Object at = config;
    for (String part : path.split("\\.")) {
      Method m = accessor(at.getClass(), part);
      if (m == null) {
        m = accessor(at.getClass(), part + "Policy");
      }
      if (m == null) {
        return NOT_SHOWN;
      }
      try {
        at = m.invoke(at);
      } catch (ReflectiveOperationException e) {
        throw new AssertionError(e);
      }
    }
    return at;
  }

  private static Method accessor(Class<?> type, String name) {
    try {
      Method m = type.getMethod(name);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T unused(Class<T> type) {
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
      if (m.getName().equals("toString")) {
        return "unused " + type.getSimpleName();
      }
      // deadLetters=true builds only with a store that keeps the state and a dead-letter destination
      if (m.getName().equals("supportsDeadLetters")) {
        return true;
      }
      if (m.getName().equals("deadLetters") && a == null) {
        return java.util.Optional.of(unused(io.twinbox.spi.DeadLetterTransport.class));
      }
      throw new UnsupportedOperationException(m.getName() + ": this test builds, it never runs");
    });
  }
}
