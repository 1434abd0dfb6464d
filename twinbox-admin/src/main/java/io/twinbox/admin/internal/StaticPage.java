package io.twinbox.admin.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** The admin page's files, read once from the classpath ({@code io/twinbox/admin/page/}). */
public final class StaticPage {
  /** One file: its bytes and media type. */
  public record Asset(byte[] bytes, String contentType) {}

  private static final String BASE = "/io/twinbox/admin/page/";
  private final Map<String, Asset> assets;

  public StaticPage() {
    assets = Map.of(
        "/", load("index.html", "text/html; charset=utf-8"),
        "/admin.css", load("admin.css", "text/css; charset=utf-8"),
        "/admin.js", load("admin.js", "text/javascript; charset=utf-8"),
        "/stuck.js", load("stuck.js", "text/javascript; charset=utf-8"),
        "/parked.js", load("parked.js", "text/javascript; charset=utf-8"));
  }

  /** The file served at {@code path}, or {@code null}. */
  public Asset get(String path) {
    return assets.get(path);
  }

  private static Asset load(String name, String contentType) {
    try (InputStream in = StaticPage.class.getResourceAsStream(BASE + name)) {
      if (in == null) {
        throw new IllegalStateException("the admin page resource " + BASE + name + " is missing from the jar");
      }
      return new Asset(in.readAllBytes(), contentType);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the admin page resource " + name, e);
    }
  }
}
