package io.twinbox.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Values for the settings of one {@link Catalogue}: those given explicitly, and the catalogue's
 * defaults for the rest. Obtained from {@link Catalogue#values}, which has checked them. Immutable
 * and thread-safe.
 */
public final class SettingValues {
  private final Catalogue<?> catalogue;
  private final Map<String, Object> explicit;

  SettingValues(Catalogue<?> catalogue, Map<String, ?> explicit) {
    this.catalogue = catalogue;
    this.explicit = Collections.unmodifiableMap(new LinkedHashMap<>(explicit));
  }

  /** The values given, by setting name. */
  public Map<String, Object> explicit() {
    return explicit;
  }

  public boolean isSet(String name) {
    return explicit.containsKey(name);
  }

  /**
   * The value of the catalogue's setting called {@code setting.name()}: as given, else its default
   * (null when it has none).
   */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    return (T) get(setting.name());
  }

  /** The value as given, else the default of the catalogue's setting; null when neither. */
  public Object get(String name) {
    if (explicit.containsKey(name)) {
      return explicit.get(name);
    }
    return catalogue.find(name).map(Setting::defaultValue).orElse(null);
  }

  /** The values of a group ({@code retry.*}) as values of the group's own catalogue. */
  SettingValues group(String name, Catalogue<?> sub) {
    Map<String, Object> own = new LinkedHashMap<>();
    explicit.forEach((k, v) -> {
      if (k.startsWith(name + ".")) {
        own.put(k.substring(name.length() + 1), v);
      }
    });
    return new SettingValues(sub, own);
  }

  /** The values given, secret ones masked. */
  @Override
  public String toString() {
    Map<String, String> shown = new LinkedHashMap<>();
    explicit.forEach((k, v) -> shown.put(k,
        catalogue.find(k).map(s -> s.secret() ? "****" : s.format(v)).orElse("?")));
    return catalogue.prefix() + shown;
  }
}
