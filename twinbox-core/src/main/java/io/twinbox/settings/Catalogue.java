package io.twinbox.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The settings of one component, in order, with how each is applied to the component's builder:
 * the single place a setting is declared. The Spring Boot starter binds {@code twinbox.<prefix>.*}
 * through it, the CLI reads {@code <prefix>.*} keys through it, and the README's tables and the
 * IDE metadata are generated from it.
 *
 * <pre>{@code
 * public static final Catalogue<Relay.Builder> CATALOGUE = Catalogue.<Relay.Builder>builder("relay", "Relay.Builder")
 *     .add(BATCH_SIZE, Relay.Builder::batchSize)
 *     .group("retry", RetryPolicy.settings(RetryPolicy.ofDefaults()), ..., Relay.Builder::retryPolicy)
 *     .build();
 * SettingValues values = CATALOGUE.values(Map.of("batchSize", 42), name -> "relay." + name);
 * CATALOGUE.apply(Relay.builder(store, transport), values);
 * }</pre>
 *
 * <p><b>Names.</b> A setting's name is the builder method's ({@code batchSize}); a group prefixes
 * its own ({@code retry.maxAttempts}). The surfaces derive theirs mechanically: {@link #kebab}
 * ({@code twinbox.relay.retry.max-attempts}) and {@link #dotted} ({@code relay.retry.max.attempts}).
 *
 * <p>Immutable and thread-safe; {@link #apply} is as thread-safe as the builder it is given.
 *
 * @param <B> the builder the settings are applied to
 */
public final class Catalogue<B> {
  private final String prefix;
  private final String title;
  private final List<Entry<B>> entries;
  private final List<Rule> rules;
  private final Map<String, Setting<?>> settings;

  private Catalogue(Builder<B> b) {
    this.prefix = b.prefix;
    this.title = b.title;
    this.entries = List.copyOf(b.entries);
    this.rules = List.copyOf(b.rules);
    Map<String, Setting<?>> all = new LinkedHashMap<>();
    for (Entry<B> e : entries) {
      for (Setting<?> s : e.settings()) {
        if (all.put(s.name(), s) != null) {
          throw new IllegalStateException(prefix + ": setting " + s.name() + " is declared twice");
        }
      }
    }
    this.settings = Collections.unmodifiableMap(all);
  }

  /**
   * @param prefix where the component's settings live, e.g. {@code relay} or {@code kafka.consumer}
   *     (empty for top-level settings)
   * @param title what the settings configure, for people, e.g. {@code Relay.Builder}
   */
  public static <B> Builder<B> builder(String prefix, String title) {
    return new Builder<>(prefix, title);
  }

  public String prefix() {
    return prefix;
  }

  public String title() {
    return title;
  }

  /** Every setting, groups flattened under their prefixed names, in declaration order. */
  public List<Setting<?>> settings() {
    return List.copyOf(settings.values());
  }

  /** Whether {@link #apply} applies the setting; false for one the caller passes itself (a constructor argument). */
  public boolean applies(String name) {
    for (Entry<B> e : entries) {
      if (e instanceof Single<B, ?> single && single.setting().name().equals(name)) {
        return single.applier() != null;
      }
      if (e instanceof Group<B, ?, ?> g && name.startsWith(g.name() + ".")) {
        return g.sub().applies(name.substring(g.name().length() + 1));
      }
    }
    return false;
  }

  public Optional<Setting<?>> find(String name) {
    return Optional.ofNullable(settings.get(name));
  }

  /** The setting called {@code name}. @throws IllegalArgumentException if there is none */
  @SuppressWarnings("unchecked")
  public <T> Setting<T> setting(String name) {
    Setting<?> s = settings.get(name);
    if (s == null) {
      throw new IllegalArgumentException(prefix + " has no setting " + name);
    }
    return (Setting<T>) s;
  }

  /**
   * Checks explicitly given values — each against its setting's limits, then the catalogue's rules
   * over the values and defaults — and returns every problem, each naming the setting as {@code
   * shownName} does.
   */
  public List<String> problems(Map<String, ?> explicit, Function<String, String> shownName) {
    List<String> problems = new ArrayList<>();
    Map<String, Object> valid = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : explicit.entrySet()) {
      Setting<?> s = settings.get(e.getKey());
      if (s == null) {
        problems.add(shownName.apply(e.getKey()) + " is not a setting of " + title);
        continue;
      }
      try {
        checkRaw(s, e.getValue(), shownName.apply(s.name()));
        valid.put(e.getKey(), e.getValue());
      } catch (RuntimeException ex) {
        problems.add(ex.getMessage());
      }
    }
    // The rules see the valid values, and the defaults in place of the others.
    SettingValues values = new SettingValues(this, valid);
    for (Rule r : allRules()) {
      String violation = r.violation(values, shownName);
      if (violation != null) {
        problems.add(violation);
      }
    }
    return problems;
  }

  /**
   * The validated values: {@link #problems} must find none.
   *
   * @param explicit values by setting name; settings left out keep their default
   * @throws IllegalArgumentException listing every problem, one per line
   */
  public SettingValues values(Map<String, ?> explicit, Function<String, String> shownName) {
    List<String> problems = problems(explicit, shownName);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", problems));
    }
    return new SettingValues(this, explicit);
  }

  /** {@link #values(Map, Function)} naming the settings by their own names. */
  public SettingValues values(Map<String, ?> explicit) {
    return values(explicit, Function.identity());
  }

  /**
   * Applies every explicitly given value to {@code builder} (a group's values as one object, e.g. a
   * {@code RetryPolicy}); the builder keeps its defaults for the others. Settings declared without
   * an applier are left to the caller (e.g. a constructor argument).
   */
  public B apply(B builder, SettingValues values) {
    for (Entry<B> e : entries) {
      e.apply(builder, values);
    }
    return builder;
  }

  private List<Rule> allRules() {
    List<Rule> all = new ArrayList<>(rules);
    for (Entry<B> e : entries) {
      if (e instanceof Group<B, ?, ?> g) {
        for (Rule r : g.sub.allRules()) {
          all.add((v, shown) -> r.violation(v.group(g.name, g.sub), n -> shown.apply(g.name + "." + n)));
        }
      }
    }
    return all;
  }

  @SuppressWarnings("unchecked")
  private static <T> void checkRaw(Setting<T> s, Object value, String shownName) {
    s.check((T) value, shownName);
  }

  /**
   * {@code batchSize} → {@code batch-size}, {@code retry.maxAttempts} → {@code retry.max-attempts}:
   * the Spring Boot form.
   */
  public static String kebab(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /** {@code retry.maxAttempts} → {@code retry.max.attempts}: the CLI's form. */
  public static String dotted(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1.$2").toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return "Catalogue[" + prefix + ": " + String.join(", ", settings.keySet()) + "]";
  }

  /**
   * A condition over several settings of one catalogue, e.g. "retention ≥ redeliveryHorizon".
   * Returns null when it holds, else the problem, naming the settings as {@code shownName} does.
   */
  @FunctionalInterface
  public interface Rule {
    String violation(SettingValues values, Function<String, String> shownName);
  }

  private interface Entry<B> {
    List<Setting<?>> settings();

    void apply(B builder, SettingValues values);
  }

  private record Single<B, T>(Setting<T> setting, BiConsumer<? super B, ? super T> applier) implements Entry<B> {
    @Override
    public List<Setting<?>> settings() {
      return List.of(setting);
    }

    @Override
    public void apply(B builder, SettingValues values) {
      if (applier != null && values.isSet(setting.name())) {
        applier.accept(builder, values.get(setting));
      }
    }
  }

  private record Group<B, S, R>(String name, Catalogue<S> sub, Supplier<S> start, Function<S, R> finish,
      BiConsumer<? super B, ? super R> applier) implements Entry<B> {
    @Override
    public List<Setting<?>> settings() {
      return sub.settings().stream().<Setting<?>>map(s -> s.named(name + "." + s.name())).toList();
    }

    @Override
    public void apply(B builder, SettingValues values) {
      SettingValues own = values.group(name, sub);
      if (!own.explicit().isEmpty()) {
        applier.accept(builder, finish.apply(sub.apply(start.get(), own)));
      }
    }
  }

  /** Declares a catalogue. Not thread-safe. */
  public static final class Builder<B> {
    private final String prefix;
    private final String title;
    private final List<Entry<B>> entries = new ArrayList<>();
    private final List<Rule> rules = new ArrayList<>();

    private Builder(String prefix, String title) {
      this.prefix = Objects.requireNonNull(prefix, "prefix cannot be null");
      this.title = Objects.requireNonNull(title, "title cannot be null");
    }

    /** A setting and the builder method that takes it. */
    public <T> Builder<B> add(Setting<T> setting, BiConsumer<? super B, ? super T> applier) {
      entries.add(new Single<>(Objects.requireNonNull(setting, "setting cannot be null"),
          Objects.requireNonNull(applier, "applier cannot be null")));
      return this;
    }

    /** A setting the caller applies itself (e.g. a constructor argument). */
    public <T> Builder<B> add(Setting<T> setting) {
      entries.add(new Single<>(Objects.requireNonNull(setting, "setting cannot be null"), null));
      return this;
    }

    /**
     * Another catalogue's settings under {@code name.}: when any of them is given, a sub-builder
     * from {@code start} gets them all, and {@code finish}'s result goes to {@code applier} (e.g.
     * a {@code RetryPolicy} to {@code retryPolicy}).
     */
    public <S, R> Builder<B> group(String name, Catalogue<S> sub, Supplier<S> start, Function<S, R> finish,
        BiConsumer<? super B, ? super R> applier) {
      entries.add(new Group<>(name, sub, start, finish, applier));
      return this;
    }

    public Builder<B> rule(Rule rule) {
      rules.add(Objects.requireNonNull(rule, "rule cannot be null"));
      return this;
    }

    public Catalogue<B> build() {
      return new Catalogue<>(this);
    }
  }
}
