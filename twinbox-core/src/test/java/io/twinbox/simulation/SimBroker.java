package io.twinbox.simulation;

import io.twinbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A partitioned log, as a Kafka topic: a message goes to the partition of its aggregate (an
 * unordered one by its id) and stays there; consumers read each partition from an offset.
 */
final class SimBroker {
  /** One record: the message, the relay node that sent it, when. */
  record Delivery(OutboxMessage message, String node, long atMillis) {}

  private final List<List<Delivery>> logs = new ArrayList<>();
  private final SimWorld world;

  SimBroker(int partitions, SimWorld world) {
    this.world = world;
    for (int i = 0; i < partitions; i++) {
      logs.add(new ArrayList<>());
    }
  }

  int partitions() {
    return logs.size();
  }

  void append(OutboxMessage m, String node) {
    logs.get(partitionOf(m)).add(new Delivery(m, node, world.time.millis()));
  }

  List<Delivery> log(int partition) {
    return logs.get(partition);
  }

  int partitionOf(OutboxMessage m) {
    String key = m.aggregateId() == null ? m.id().toString() : m.aggregateType() + '/' + m.aggregateId();
    return Math.floorMod(key.hashCode(), logs.size());
  }
}
