package io.twinbox.bench.relay;

import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Relay throughput: pre-fill the outbox, time one {@link Drainer} from start until the outbox is
 * empty, refill, next drainer. Events/s = pre-filled events / elapsed.
 */
public final class RelayBench {
  private final Drainer.Context base;
  private final int aggregates;
  private final int partitions;
  private int topicNo;

  public RelayBench(Drainer.Context base, int aggregates, int partitions) {
    this.base = base;
    this.aggregates = aggregates;
    this.partitions = partitions;
  }

  /**
   * Drains a smaller outbox without recording anything: warms this JVM's JIT, the broker and the
   * database caches, so that the first measured drainer is not penalised.
   */
  public void warmup(Drainer d, int events) throws Exception {
    Prefill.clear(base.admin());
    Prefill.fill(base.admin(), events, aggregates);
    String topic = "bench-warmup-" + (++topicNo);
    io.twinbox.bench.Topics.createWarm(base.broker(), topic, partitions);
    long t0 = System.nanoTime();
    d.drain(new Drainer.Context(base.db(), base.admin(), base.broker(), topic, Prefill.count(base.admin()),
        base.timeout()));
    System.out.printf("  warm-up: %s drained %,d events in %.1f s%n", d.name(), events, (System.nanoTime() - t0) / 1e9);
  }

  public Result measure(Drainer d, String runId) throws Exception {
    Prefill.clear(base.admin());
    long t0 = System.nanoTime();
    Prefill.fill(base.admin(), (int) base.events(), aggregates);
    long pending = Prefill.count(base.admin());
    System.out.printf("  %s %s: pre-filled %,d events in %.1f s%n", d.name(), d.params().entrySet().stream()
        .filter(e -> !e.getKey().equals("description")).toList(), pending, (System.nanoTime() - t0) / 1e9);
    String topic = "bench-relay-" + runId + "-" + (++topicNo);
    if (base.broker() != null) {
      io.twinbox.bench.Topics.createWarm(base.broker(), topic, partitions);
    }
    Drainer.Context ctx = new Drainer.Context(base.db(), base.admin(), base.broker(), topic, pending, base.timeout());
    double others = io.twinbox.bench.Quiet.await(base.broker() == null ? Set.of() : Set.of(base.broker().pid()));
    double load = Machine.load1();
    CpuMeter cpu = CpuMeter.start(base.broker() == null ? Set.of() : Set.of(base.broker().pid()));
    long start = System.nanoTime();
    Map<String, Object> extra = d.drain(ctx);
    long elapsed = System.nanoTime() - start;
    Map<String, Double> cpuUse = cpu.stop();
    long left = Prefill.count(base.admin());
    double seconds = elapsed / 1e9;
    Result r = new Result("relay", d.name(), load).loadAfter(Machine.load1());
    d.params().forEach(r::param);
    r.param("others_cpu_before", others);
    r.param("events", pending).param("aggregates", aggregates).param("topic_partitions", partitions);
    r.metric("events_per_s", (pending - left) / seconds)
        .metric("seconds", Math.round(seconds * 1000) / 1000.0)
        .metric("left_in_outbox", left);
    if (base.broker() != null && !d.name().equals("raw-sql-limit")) {
      r.metric("records_in_topic", recordsIn(topic));
    }
    extra.forEach(r::metric);
    r.metrics(cpuUse);
    System.out.printf("  %s: %,.0f events/s (%.2f s, %d left)%n", d.name(), (pending - left) / seconds, seconds, left);
    return r;
  }

  private long recordsIn(String topic) {
    var props = new java.util.Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, base.broker().bootstrapServers());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      return c.endOffsets(tps).values().stream().mapToLong(Long::longValue).sum()
          - (long) partitions * io.twinbox.bench.Topics.WARMUP_RECORDS_PER_PARTITION;
    }
  }

  /** The threads a relay result used: workers for a relay, claimers for a loop. */
  static String threads(Result r) {
    return String.valueOf(r.param("workers") != null ? r.param("workers") : r.param("claimers"));
  }

  /**
   * The issue-2 table: per drainer and thread count, the mean events/s over the rounds, each
   * round's figure, the ratio to the raw-SQL limit (the best mean of the raw-SQL loop), and the
   * per-batch breakdown (means over rounds).
   */
  public static List<List<String>> table(List<Result> all) {
    List<Result> relay = all.stream().filter(r -> r.scenario().equals("relay")).toList();
    Map<String, List<Result>> groups = new java.util.LinkedHashMap<>();
    for (Result r : relay) {
      groups.computeIfAbsent(r.variant() + "|" + threads(r), k -> new ArrayList<>()).add(r);
    }
    double limit = groups.entrySet().stream().filter(e -> e.getKey().startsWith("raw-sql-limit|"))
        .mapToDouble(e -> mean(e.getValue(), "events_per_s")).max().orElse(Double.NaN);
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("drainer", "threads", "events/s (mean)", "per round", "vs raw-SQL limit", "claim ms",
        "publish ms", "complete ms", "waves/batch", "cpu other"));
    for (Map.Entry<String, List<Result>> e : groups.entrySet()) {
      List<Result> rs = e.getValue();
      Result first = rs.get(0);
      double eps = mean(rs, "events_per_s");
      String perRound = String.join(" / ", rs.stream().map(r -> Report.num(r.number("events_per_s"))).toList());
      double publish = first.metrics().containsKey("publish_ms_per_batch") ? mean(rs, "publish_ms_per_batch")
          : mean(rs, "send_flush_ms_per_batch");
      double complete = first.metrics().containsKey("complete_ms_per_batch") ? mean(rs, "complete_ms_per_batch")
          : mean(rs, "delete_commit_ms_per_batch");
      rows.add(List.of(first.variant(), threads(first), Report.num(eps), perRound, Report.ratio(eps, limit),
          Report.ms(mean(rs, "claim_ms_per_batch")), Report.ms(publish), Report.ms(complete),
          Report.ms(mean(rs, "waves_per_batch")), Report.ms(mean(rs, "cpu_other"))));
    }
    return rows;
  }

  static double mean(List<Result> rs, String metric) {
    return rs.stream().mapToDouble(r -> r.number(metric)).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
  }
}
