package io.twinbox.bench.peers.modulith;

import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.bench.CpuMeter;
import io.twinbox.bench.Machine;
import io.twinbox.bench.Payloads;
import io.twinbox.bench.Pools;
import io.twinbox.bench.Quiet;
import io.twinbox.bench.Result;
import io.twinbox.testkit.KafkaBroker;
import io.twinbox.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.core.EventPublicationRegistry;
import org.springframework.modulith.events.core.PublicationTargetIdentifier;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The relay scenario's Spring Modulith contender. {@code events} publications for the Kafka
 * externalizer are stored beforehand through the registry's own {@code store(event, listeners)} (the
 * call its multicaster makes inside the publishing transaction), 1,000 per transaction, by an
 * application that is then shut down — as after a broker outage and a restart. A fresh application
 * then drains them with {@code IncompleteEventPublications.resubmitIncompletePublications(p -> true)} — what
 * {@code spring.modulith.events.republish-outstanding-events-on-restart=true} runs at start-up (in 2.0
 * the {@code ResubmissionOptions} variant only resubmits publications already marked FAILED) — each
 * publication being handed to the {@code @ApplicationModuleListener} externalizer on the task
 * executor, sent with {@code KafkaTemplate}, and marked completed when the broker acknowledged it.
 */
public final class ModulithRelay {
  private final PostgresDatabase db;
  private final KafkaBroker broker;

  public ModulithRelay(PostgresDatabase db, KafkaBroker broker) {
    this.db = db;
    this.broker = broker;
  }

  /** Stores {@code events} incomplete publications for the Kafka externalizer, 1,000 per transaction. */
  public void prefill(String topic, int events, int aggregates) throws Exception {
    Modulith.clear(db.dataSource());
    try (HikariDataSource pool = Pools.create(db, "modulith-prefill", 4, false);
        // Defaults (completion mode update): the probe's row stays to be read.
        ConfigurableApplicationContext ctx = Modulith.start(Modulith.Setup.defaults(), pool, broker.bootstrapServers())) {
      TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
      // One event through the normal path tells the externalizer's listener id.
      tx.executeWithoutResult(s -> ctx.publishEvent(new OrderPlaced(topic, "order-0", UUID.randomUUID().toString(),
          Payloads.orderJson(0, Payloads.customer(), 100))));
      String listener = null;
      for (int i = 0; i < 200 && listener == null; i++) {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT listener_id FROM " + Modulith.TABLE + " LIMIT 1")) {
          listener = rs.next() ? rs.getString(1) : null;
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
      if (listener == null) {
        throw new IllegalStateException("Spring Modulith stored no event publication for the Kafka externalizer");
      }
      // Let the normal path finish before the table is emptied.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (Modulith.pending(db.dataSource()) > 0 && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      Modulith.clear(db.dataSource());
      PublicationTargetIdentifier target = PublicationTargetIdentifier.of(listener);
      EventPublicationRegistry registry = ctx.getBean(EventPublicationRegistry.class);
      for (int done = 0; done < events; done += 1000) {
        int from = done;
        int n = Math.min(1000, events - done);
        tx.executeWithoutResult(s -> {
          for (int i = 0; i < n; i++) {
            long no = from + i;
            registry.store(new OrderPlaced(topic, "order-" + ThreadLocalRandom.current().nextInt(aggregates),
                UUID.randomUUID().toString(), Payloads.orderJson(no, Payloads.customer(), 100 + no)), Stream.of(target));
          }
        });
      }
    }
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
      st.execute("VACUUM ANALYZE " + Modulith.TABLE);
    }
  }

  /** Drains the incomplete publications with {@code setup}; one "relay" result. */
  public Result drain(Modulith.Setup setup, Duration timeout) throws Exception {
    long pending = Modulith.pending(db.dataSource());
    double others = Quiet.await(Set.of(broker.pid()));
    double load = Machine.load1();
    long start;
    long elapsed;
    long startup;
    Map<String, Double> cpuUse;
    long left;
    try (HikariDataSource pool = Pools.create(db, "modulith-relay", Math.min(14, setup.threads() + 4), false)) {
      long t0 = System.nanoTime();
      try (ConfigurableApplicationContext ctx = Modulith.start(setup, pool, broker.bootstrapServers())) {
        startup = System.nanoTime() - t0;
        CpuMeter cpu = CpuMeter.start(Set.of(broker.pid()));
        start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        // What republish-outstanding-events-on-restart=true runs at start-up. (The ResubmissionOptions
        // variant only picks up publications already marked FAILED, e.g. by the staleness monitor.)
        ctx.getBean(IncompleteEventPublications.class).resubmitIncompletePublications(p -> true);
        // Counted at least once: on a loaded machine the resubmit call itself can outlast the timeout.
        left = Modulith.pending(db.dataSource());
        while (left > 0 && System.nanoTime() - deadline < 0) {
          TimeUnit.MILLISECONDS.sleep(50);
          left = Modulith.pending(db.dataSource());
        }
        elapsed = System.nanoTime() - start;
        cpuUse = cpu.stop();
      }
    }
    double seconds = elapsed / 1e9;
    Result r = new Result("relay", setup.name(), load).loadAfter(Machine.load1())
        .param("workers", setup.threads())
        .param("description", "Spring Modulith resubmitIncompletePublications(all) on a " + setup.threads()
            + "-thread task executor, completion mode " + setup.completionMode()
            + "; per publication: KafkaTemplate.send, mark completed on the ack")
        .param("others_cpu_before", others)
        .param("events", pending);
    r.metric("events_per_s", (pending - left) / seconds)
        .metric("seconds", Math.round(seconds * 1000) / 1000.0)
        .metric("left_in_outbox", left)
        .metric("startup_seconds", Math.round(startup / 1e6) / 1000.0);
    r.metrics(cpuUse);
    System.out.printf("  %s (%d threads): %,.0f events/s (%.2f s, %d left; application start %.1f s, not counted)%n",
        setup.name(), setup.threads(), (pending - left) / seconds, seconds, left, startup / 1e9);
    return r;
  }

}
