package io.twinbox.bench;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured figure set: a scenario ({@code write}, {@code relay}, {@code latency}), a variant
 * (what was measured: {@code business-only}, {@code raw-sql}, {@code twinbox}, later each peer), its
 * parameters, and its metrics. One JSON line each in {@code results/results.jsonl}.
 */
public final class Result {
  private final String scenario;
  private final String variant;
  private final Map<String, Object> params = new LinkedHashMap<>();
  private final Map<String, Object> metrics = new LinkedHashMap<>();
  private final Instant at = Instant.now();
  private final double loadBefore;
  private double loadAfter = -1;

  public Result(String scenario, String variant, double loadBefore) {
    this.scenario = scenario;
    this.variant = variant;
    this.loadBefore = loadBefore;
  }

  public Result param(String name, Object value) {
    params.put(name, value);
    return this;
  }

  public Result metric(String name, Object value) {
    metrics.put(name, value);
    return this;
  }

  public Result metrics(Map<String, ?> values) {
    metrics.putAll(values);
    return this;
  }

  public Result loadAfter(double load) {
    this.loadAfter = load;
    return this;
  }

  public String scenario() {
    return scenario;
  }

  public String variant() {
    return variant;
  }

  public Map<String, Object> params() {
    return params;
  }

  public Map<String, Object> metrics() {
    return metrics;
  }

  public double number(String metric) {
    Object v = metrics.get(metric);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  /** The 1-minute load average at the end of the measurement, else at its start. */
  public double loadBeforeOrAfter() {
    return loadAfter >= 0 ? loadAfter : loadBefore;
  }

  public Object param(String name) {
    return params.get(name);
  }

  /** Reads back a line of the results file. */
  @SuppressWarnings("unchecked")
  public static Result fromJson(Map<String, Object> json) {
    Result r = new Result((String) json.get("scenario"), (String) json.get("variant"),
        ((Number) json.getOrDefault("load1_before", -1)).doubleValue());
    r.loadAfter(((Number) json.getOrDefault("load1_after", -1)).doubleValue());
    r.params.putAll((Map<String, Object>) json.getOrDefault("params", Map.of()));
    r.metrics.putAll((Map<String, Object>) json.getOrDefault("metrics", Map.of()));
    return r;
  }

  /** The JSON object written to the results file. */
  public Map<String, Object> toJson(String runId, Map<String, Object> machine) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run", runId);
    m.put("time", at.toString());
    m.put("scenario", scenario);
    m.put("variant", variant);
    m.put("params", params);
    m.put("metrics", metrics);
    m.put("load1_before", loadBefore);
    m.put("load1_after", loadAfter);
    m.put("machine", machine);
    return m;
  }
}
