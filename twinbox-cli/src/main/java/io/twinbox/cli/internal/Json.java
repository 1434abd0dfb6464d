package io.twinbox.cli.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/** Writes the {@code --json} output: one pretty-printed JSON document on stdout. */
public final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  public static void print(PrintWriter out, Object value) {
    try {
      out.println(MAPPER.writeValueAsString(value));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
