package io.twinbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/** Runs {@code twinbox} commands in this JVM with a given environment and captures their output. */
final class Cli {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  record Result(int exitCode, String out, String err) {
    JsonNode json() {
      try {
        return MAPPER.readTree(out);
      } catch (Exception e) {
        throw new UncheckedIOException("stdout is not JSON: " + out + "\nstderr: " + err,
            new java.io.IOException(e));
      }
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private final Map<String, String> env;

  Cli(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Twinbox.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(code, out.toString(), err.toString());
  }
}
