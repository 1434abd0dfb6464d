package io.twinbox.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A small HTTP client for the tests; remembers every answer so a test can search them all. */
final class Http {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  final List<String> seen = new CopyOnWriteArrayList<>();

  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  record Answer(int status, String body, HttpResponse<String> raw) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }
  }

  Answer get(String path, String token) {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path)).GET();
    return send(r, token);
  }

  Answer post(String path, String token, String json) {
    return post(path, token, "application/json", json);
  }

  Answer post(String path, String token, String contentType, String body) {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(body));
    return send(r, token);
  }

  private Answer send(HttpRequest.Builder r, String token) {
    r.timeout(Duration.ofSeconds(20));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> res = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
      seen.add(res.headers().map() + "\n" + res.body());
      return new Answer(res.statusCode(), res.body(), res);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
