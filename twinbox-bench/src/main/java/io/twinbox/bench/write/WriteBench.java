package io.twinbox.bench.write;

import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Report;
import io.twinbox.bench.Result;
import io.twinbox.bench.write.WritePath.Order;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Measures committed transactions per second of each {@link WritePath} with N client threads, on
 * one database. Every thread loops borrow connection → write → commit.
 *
 * <p>The machine is shared, and other processes' load comes in bursts. So the paths are not run
 * one after the other for their whole time: each path is first warmed up, then the measured time
 * is cut into slices, and the slices of all paths are interleaved in ABBA order (A B C, C B A, A B
 * C...). Every path thus sees the same background on average; the per-slice rates show the noise.
 * Before each slice the tables are emptied and a CHECKPOINT is taken, so that all slices start
 * alike.
 */
public final class WriteBench {

  /**
   * Settings of one client count.
   *
   * @param seconds measured seconds per path, split into {@code slices}
   * @param settleSeconds unmeasured seconds at the start of each slice
   */
  public record Settings(int clients, int warmupSeconds, int seconds, int slices, int settleSeconds, int aggregates) {}

  private final DataSource admin;
  private final List<String> resetSql;
  private final String scenario;

  /** @param admin an auto-commit pool used for setup between measurements */
  public WriteBench(DataSource admin) {
    this(admin, null, "write");
  }

  /**
   * @param admin an auto-commit pool used for setup between measurements
   * @param resetSql the statements that empty the tables before each slice; {@code null}: PostgreSQL's
   * @param scenario the scenario name of the results ({@code write}, {@code mariadb-write})
   */
  public WriteBench(DataSource admin, List<String> resetSql, String scenario) {
    this.admin = admin;
    this.resetSql = resetSql;
    this.scenario = scenario;
  }

  /** Empties the tables the paths write and checkpoints, so that every slice starts alike. */
  public void reset() throws SQLException {
    if (resetSql != null) {
      try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
        for (String sql : resetSql) {
          st.execute(sql);
        }
      }
      return;
    }
    try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
      st.execute(WritePaths.ORDERS_DDL);
      st.execute("TRUNCATE orders, twinbox_outbox");
      st.execute("VACUUM ANALYZE twinbox_aggregate");
      st.execute("CHECKPOINT");
    }
  }

  /** Warms up every path, then measures them in interleaved slices; one result per path. */
  public List<Result> measure(List<WritePath> paths, DataSource pool, Settings s) throws Exception {
    for (WritePath p : paths) {
      slice(p, pool, s.clients(), 0, s.warmupSeconds(), s.aggregates());
    }
    Map<String, List<Slice>> slices = new LinkedHashMap<>();
    paths.forEach(p -> slices.put(p.name(), new ArrayList<>()));
    int sliceSeconds = Math.max(1, s.seconds() / s.slices());
    for (int i = 0; i < s.slices(); i++) {
      List<WritePath> order = new ArrayList<>(paths);
      if (i % 2 == 1) {
        Collections.reverse(order);
      }
      for (WritePath p : order) {
        Slice sl = slice(p, pool, s.clients(), s.settleSeconds(), sliceSeconds, s.aggregates());
        slices.get(p.name()).add(sl);
      }
    }
    List<Result> results = new ArrayList<>();
    for (WritePath p : paths) {
      List<Slice> mine = slices.get(p.name());
      long n = mine.stream().mapToLong(Slice::committed).sum();
      double secs = mine.stream().mapToDouble(Slice::seconds).sum();
      Result r = new Result(scenario, p.name(), mine.stream().mapToDouble(Slice::loadBefore).average().orElse(-1))
          .loadAfter(mine.stream().mapToDouble(Slice::loadAfter).average().orElse(-1))
          .param("clients", s.clients())
          .param("seconds", secs)
          .param("slices", s.slices())
          .param("warmup_seconds", s.warmupSeconds())
          .param("aggregates", s.aggregates())
          .param("description", p.description())
          .metric("tx_per_s", n / secs)
          .metric("transactions", n)
          .metric("failed", mine.stream().mapToLong(Slice::failed).sum())
          .metric("mean_tx_ms", n == 0 ? Double.NaN : mine.stream().mapToDouble(Slice::latencyMillisSum).sum() / n)
          .metric("slice_tx_per_s", mine.stream().map(x -> Math.round(x.committed() / x.seconds())).toList())
          .metric("cpu_other", round(mine.stream().mapToDouble(x -> x.cpu().getOrDefault("cpu_other", -1.0)).average().orElse(-1)))
          .metric("cpu_postgres", round(mine.stream().mapToDouble(x -> x.cpu().getOrDefault("cpu_postgres", -1.0)).average().orElse(-1)))
          .metric("cpu_bench_jvm", round(mine.stream().mapToDouble(x -> x.cpu().getOrDefault("cpu_bench_jvm", -1.0)).average().orElse(-1)));
      results.add(r);
    }
    return results;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private record Slice(long committed, long failed, double seconds, double latencyMillisSum, double loadBefore,
      double loadAfter, Map<String, Double> cpu) {}

  private Slice slice(WritePath path, DataSource pool, int clients, int settleSeconds, int seconds, int aggregates)
      throws Exception {
    reset();
    try (Connection c = admin.getConnection()) {
      path.prepare(c);
    }
    try {
      return run(path, pool, clients, settleSeconds, seconds, aggregates);
    } finally {
      try (Connection c = admin.getConnection()) {
        path.finish(c);
      }
    }
  }

  private Slice run(WritePath path, DataSource pool, int clients, int settleSeconds, int seconds, int aggregates)
      throws InterruptedException {
    LongAdder committed = new LongAdder();
    LongAdder failed = new LongAdder();
    LongAdder latencyNanos = new LongAdder();
    AtomicLong orderNo = new AtomicLong();
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(settleSeconds);
    long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    double loadBefore = Machine.load1();
    CountDownLatch done = new CountDownLatch(clients);
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < clients; t++) {
      Thread th = new Thread(() -> {
        try {
          ThreadLocalRandom r = ThreadLocalRandom.current();
          while (true) {
            long t0 = System.nanoTime();
            if (t0 - measureTo >= 0) {
              break;
            }
            long no = orderNo.incrementAndGet();
            long cents = 100 + r.nextLong(1_000_000);
            String customer = Payloads.customer();
            Order o = new Order(no, customer, cents, Payloads.aggregateId(aggregates),
                Payloads.orderJson(no, customer, cents));
            try (Connection c = pool.getConnection()) {
              try {
                path.write(c, o);
                c.commit();
              } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
              }
              long t1 = System.nanoTime();
              if (t0 - measureFrom >= 0 && t1 - measureTo < 0) {
                committed.increment();
                latencyNanos.add(t1 - t0);
              }
            } catch (SQLException | RuntimeException e) {
              failed.increment();
              if (errors.size() < 5) {
                errors.add(e);
              }
            }
          }
        } finally {
          done.countDown();
        }
      }, "bench-writer-" + t);
      th.setDaemon(true);
      th.start();
    }
    long untilMeasured = measureFrom - System.nanoTime();
    if (untilMeasured > 0) {
      TimeUnit.NANOSECONDS.sleep(untilMeasured);
    }
    CpuMeter cpu = CpuMeter.start(java.util.Set.of());
    done.await();
    Map<String, Double> cpuUse = cpu.stop();
    for (Throwable e : errors) {
      System.err.println("  " + path.name() + ": transaction failed: " + e);
    }
    return new Slice(committed.sum(), failed.sum(), seconds, latencyNanos.sum() / 1e6, loadBefore, Machine.load1(),
        cpuUse);
  }

  /** One row of the issue-2 table: tx/s and the ratios that matter, within one client count. */
  public static List<String> row(int clients, List<Result> all, String path) {
    Result r = find(all, path, clients);
    Result base = find(all, "business-only", clients);
    Result raw = find(all, "raw-sql", clients);
    return List.of(path, String.valueOf(clients), r == null ? "–" : Report.num(r.number("tx_per_s")),
        r == null ? "–" : String.valueOf(r.metrics().getOrDefault("slice_tx_per_s", "")),
        r == null ? "–" : Report.ms(r.number("mean_tx_ms")),
        r == null || raw == null ? "–" : Report.ratio(r.number("tx_per_s"), raw.number("tx_per_s")),
        r == null || base == null ? "–" : Report.ratio(r.number("tx_per_s"), base.number("tx_per_s")),
        r == null ? "–" : Report.ms(r.number("cpu_other")));
  }

  static Result find(List<Result> all, String variant, int clients) {
    return all.stream().filter(r -> r.scenario().equals("write") && r.variant().equals(variant)
        && r.param("clients") instanceof Number n && n.intValue() == clients).reduce((a, b) -> b).orElse(null);
  }
}
