package io.twinbox.simulation;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.spi.PublishOutcome;
import io.twinbox.spi.Transport;
import java.util.concurrent.CompletableFuture;

/**
 * One relay node's connection to the {@link SimBroker}. Every send is a fault point; the broker may
 * then refuse it for now (RETRY: an attempt used), be unavailable (no attempt used), or take it
 * and lose the acknowledgement (the relay hears "unavailable" for a message that is on the log).
 * Answers are always complete when {@code send} returns: waiting is the world's time, not a thread's.
 *
 * <p>Before taking a message it checks the relay's right to send it: the node must hold a live
 * lease on the message's partition on the database's clock when it decides to send. Every send
 * without one is recorded.
 */
final class SimTransport implements Transport {
  private final SimWorld world;
  private final SimRelayNode node;

  SimTransport(SimWorld world, SimRelayNode node) {
    this.world = world;
    this.node = node;
  }

  @Override
  public String name() {
    return "simulated";
  }

  @Override
  public CompletableFuture<PublishOutcome> send(OutboxMessage m) {
    // Judged when the relay decides to send, before the fault point: a pause between the decision
    // and the bytes on the wire is the one window no client-side lease can close (the wave
    // publisher's documented limit); what follows from it is judged by the order invariants.
    String holder = world.store.liveLeaseHolder(m.partition()).orElse(null);
    if (!node.name().equals(holder)) {
      world.checks.sentWithoutLease(node.name(), m, holder, world.time.millis());
    }
    world.before(node, "send");
    SimFaults f = world.faults;
    PublishOutcome outcome;
    if (f.strikes(f.sendUnavailable)) {
      world.injected.add("broker unavailable");
      outcome = PublishOutcome.unavailable("simulated: broker unavailable");
    } else if (f.strikes(f.sendRetry)
        || (world.checks.troubled(m.id().toString(), f) && f.strikes(f.troubledRetry))) {
      world.injected.add("broker retry");
      world.checks.retryAnswered(m.id().toString());
      outcome = PublishOutcome.retry("simulated: not enough replicas");
    } else {
      world.broker.append(m, node.name());
      if (f.strikes(f.lostAck)) {
        world.injected.add("lost ack");
        outcome = PublishOutcome.unavailable("simulated: no acknowledgement");
      } else {
        outcome = PublishOutcome.acked();
      }
    }
    world.after(node, "send (" + outcome.kind() + ")");
    return CompletableFuture.completedFuture(outcome);
  }

  @Override
  public void close() {}
}
