package io.twinbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.twinbox.Relay;
import io.twinbox.RelayMode;
import io.twinbox.WalStats;
import io.twinbox.jdbc.JdbcStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A WAL relay ({@code RelayMode.WAL}) in its own JVM, as a sidecar would run it; the same arguments
 * and output lines as {@link RelayProcess}, whose parser reads them. The stats line adds the
 * transport's sends and the WAL engine's own counters: {@code confirms} (slot positions confirmed),
 * {@code withheld} (confirmations refused because the lease was no longer valid), {@code sessions},
 * {@code streamed} and {@code swept}.
 */
public final class WalRelayProcess {
  private WalRelayProcess() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 7) {
      throw new IllegalArgumentException(
          "usage: WalRelayProcess <jdbc url> <user> <password> <bootstrap> <topic> <node id> <lease ttl ms>");
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(args[0]);
    hc.setUsername(args[1]);
    hc.setPassword(args[2]);
    hc.setMaximumPoolSize(4);
    hc.setPoolName("wal-relay-" + args[5]);
    HikariDataSource ds = new HikariDataSource(hc);
    JdbcStore store = JdbcStore.builder(ds).build();
    SwitchableTransport kafka = new SwitchableTransport(Scenario.kafka(args[3], args[4])).countOnly();
    Relay relay = Relay.builder(store, kafka)
        .mode(RelayMode.WAL)
        .nodeId(args[5])
        .leaseTtl(Duration.ofMillis(Long.parseLong(args[6])))
        .batchSize(200)
        .walSweepInterval(Duration.ofMillis(200))
        .build();

    CountDownLatch stopped = new CountDownLatch(1);
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "relay-stats");
      t.setDaemon(true);
      return t;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      ticker.shutdownNow();
      relay.close();
      kafka.close();
      ds.close();
      System.out.println(RelayProcess.FINAL + " " + line(relay, kafka));
      System.out.flush();
      stopped.countDown();
    }, "relay-shutdown"));

    relay.start();
    System.out.println(RelayProcess.STARTED + " " + relay.nodeId());
    ticker.scheduleAtFixedRate(() -> System.out.println(RelayProcess.STATS + " " + line(relay, kafka)),
        250, 250, TimeUnit.MILLISECONDS);
    stopped.await();
  }

  private static String line(Relay relay, SwitchableTransport kafka) {
    WalStats wal = relay.walStats().orElseThrow();
    return RelayProcess.line(relay.stats()) + " sends=" + kafka.sendCount() + " confirms=" + wal.confirms()
        + " withheld=" + wal.withheldConfirms() + " sessions=" + wal.sessions() + " streamed=" + wal.streamed()
        + " swept=" + wal.swept();
  }
}
