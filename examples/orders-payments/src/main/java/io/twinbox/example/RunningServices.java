package io.twinbox.example;

import io.twinbox.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Both services' messaging, running: the order relay (outbox → {@code orders}), the payment
 * consumer ({@code orders} → inbox → wallets), the payment relay (outbox → {@code payments}) and
 * the order consumer ({@code payments} → inbox → order status) — plus, under chaos, the replaying
 * payment consumer. {@link #close()} stops consumers first, then relays.
 *
 * <p>Thread-safe.
 */
public final class RunningServices implements AutoCloseable {
  private final RestartableRelay orderRelay;
  private final RestartableRelay paymentRelay;
  private final List<RestartableConsumer> consumers = new ArrayList<>();
  private final List<RestartableConsumer> replayers = new ArrayList<>();

  private RunningServices(OrderService orders, PaymentService payments, Topics topics, Chaos chaos,
      ConsumerSettings consuming) {
    Duration ttl = Duration.ofSeconds(10);
    orderRelay = Wiring.relay(orders.store(), "/order-service", topics.bootstrapServers(), topics.orders(), ttl,
        chaos.transports());
    paymentRelay = Wiring.relay(payments.store(), "/payment-service", topics.bootstrapServers(), topics.payments(),
        ttl, chaos.transports());
    int batch = consuming.batchSize();
    RetryPolicy retry = consuming.retry();
    for (int i = 1; i <= consuming.instances(); i++) {
      consumers.add(Wiring.consumer("payment-service-" + i, payments.inbox(),
          chaos.consumerDataSources().apply(payments.dataSource()), payments.orderCreatedHandler(),
          topics.bootstrapServers(), topics::paymentGroup, topics.orders(), batch, retry, Map.of()));
      consumers.add(Wiring.consumer("order-service-" + i, orders.inbox(),
          chaos.consumerDataSources().apply(orders.dataSource()), orders.paymentResultHandler(),
          topics.bootstrapServers(), topics::orderGroup, topics.payments(), batch, retry, Map.of()));
    }
    if (chaos.settings().replay()) {
      // Same inbox, a new group on every start: as if none of its offset commits had ever happened.
      AtomicInteger generation = new AtomicInteger();
      replayers.add(Wiring.consumer("payment-service-replayer", payments.inbox(), payments.dataSource(),
          payments.orderCreatedHandler(), topics.bootstrapServers(),
          () -> topics.paymentGroup() + "-replay-" + generation.incrementAndGet(), topics.orders(), batch, retry,
          Map.of()));
    }
  }

  /**
   * Starts relays and consumers of both services, and the chaos timers if any.
   *
   * @param consuming consumer instances per service, batch size and retries
   */
  public static RunningServices start(OrderService orders, PaymentService payments, Topics topics, Chaos chaos,
      ConsumerSettings consuming) {
    RunningServices s = new RunningServices(orders, payments, topics, chaos, consuming);
    try {
      s.consumers.forEach(RestartableConsumer::start);
      s.replayers.forEach(RestartableConsumer::start);
      s.orderRelay.start();
      s.paymentRelay.start();
      chaos.start(List.of(s.orderRelay, s.paymentRelay), s.consumers, s.replayers);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** {@code OrderCreated} (and repeats) published by the order relay so far. */
  public long orderEventsPublished() {
    return orderRelay.published();
  }

  /** Duplicates the inboxes skipped so far, over both services and every consumer instance. */
  public long duplicatesSuppressed() {
    long n = 0;
    for (RestartableConsumer c : consumers) {
      n += c.totals().duplicates();
    }
    for (RestartableConsumer r : replayers) {
      n += r.totals().duplicates();
    }
    return n;
  }

  /** Revivals of consumers whose thread died (chaos crashes). */
  public int revivals() {
    int n = 0;
    for (RestartableConsumer c : consumers) {
      n += c.revivals();
    }
    for (RestartableConsumer r : replayers) {
      n += r.revivals();
    }
    return n;
  }

  /** Stops the replaying consumer (it only ever repeats what the real one did). */
  public void stopReplaying() {
    replayers.forEach(RestartableConsumer::close);
  }

  @Override
  public void close() {
    stopReplaying();
    consumers.forEach(RestartableConsumer::close);
    orderRelay.close();
    paymentRelay.close();
  }
}
