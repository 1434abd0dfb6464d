package io.twinbox.internal.memory;

import io.twinbox.NodeIdInUseException;
import io.twinbox.spi.PartitionLease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The lease table and the relay node table of the in-memory store, with the JDBC dialects'
 * semantics: a lease is free or expired on the store's clock, every take-over grows its epoch, and
 * renewals and releases must present the epoch. All methods run under the store's monitor.
 */
public final class MemoryLeases {
  private static final class Lease {
    String owner;
    long epoch;
    Instant until = Instant.MIN;
  }

  private static final class Node {
    String instance;
    Instant heartbeatAt;
  }

  private final Clock clock;
  private final Lease[] leases;
  private final Map<String, Node> nodes = new LinkedHashMap<>();

  public MemoryLeases(Clock clock, int partitions) {
    this.clock = clock;
    this.leases = new Lease[partitions];
    clear();
  }

  public void clear() {
    for (int p = 0; p < leases.length; p++) {
      leases[p] = new Lease();
    }
    nodes.clear();
  }

  public List<PartitionLease> acquire(String nodeId, int max, Duration ttl) {
    Instant now = clock.instant();
    List<Integer> free = new ArrayList<>();
    for (int p = 0; p < leases.length; p++) {
      if (leases[p].owner == null || leases[p].until.isBefore(now)) {
        free.add(p);
      }
    }
    // Nodes starting together should take different partitions: each starts looking at a place of
    // its own (from its id, not from a random draw, so that a simulation run replays exactly).
    int start = Math.floorMod(nodeId.hashCode(), leases.length);
    free.sort(Comparator.comparingInt(p -> Math.floorMod(p - start, leases.length)));
    List<PartitionLease> taken = new ArrayList<>();
    for (int p : free.subList(0, Math.min(Math.max(max, 0), free.size()))) {
      Lease l = leases[p];
      l.owner = nodeId;
      l.epoch++;
      l.until = now.plus(ttl);
      taken.add(new PartitionLease(p, l.epoch));
    }
    return taken;
  }

  public List<PartitionLease> renew(String nodeId, Collection<PartitionLease> held, Duration ttl) {
    Instant until = clock.instant().plus(ttl);
    List<PartitionLease> renewed = new ArrayList<>();
    for (PartitionLease pl : held) {
      if (holds(nodeId, pl)) {
        leases[pl.partition()].until = until;
        renewed.add(pl);
      }
    }
    return renewed;
  }

  public void release(String nodeId, Collection<PartitionLease> held) {
    for (PartitionLease pl : held) {
      if (holds(nodeId, pl)) {
        leases[pl.partition()].owner = null;
        leases[pl.partition()].until = Instant.MIN;
      }
    }
  }

  /** {@code nodeId} still holds {@code pl} with its epoch (expired or not: the fencing check). */
  public boolean holds(String nodeId, PartitionLease pl) {
    int p = pl.partition();
    return p >= 0 && p < leases.length && nodeId.equals(leases[p].owner) && leases[p].epoch == pl.epoch();
  }

  /** {@code nodeId} holds partition {@code p} and its lease has not run out. */
  public boolean usable(String nodeId, int p) {
    return nodeId.equals(leases[p].owner) && leases[p].until.isAfter(clock.instant());
  }

  /** The owner of partition {@code p} if its lease has not run out, else null. */
  public String liveHolder(int p) {
    Lease l = leases[p];
    return l.owner != null && l.until.isAfter(clock.instant()) ? l.owner : null;
  }

    /** Live owner → partitions held with a lease that has not run out. */
  public Map<String, Integer> liveOwners() {
    Instant now = clock.instant();
    Map<String, Integer> owners = new LinkedHashMap<>();
    for (Lease l : leases) {
      if (l.owner != null && l.until.isAfter(now)) {
        owners.merge(l.owner, 1, Integer::sum);
      }
    }
    return owners;
  }

  /** Partitions whose owner column names {@code owner}, whether the lease ran out or not. */
  public int ownedBy(String owner) {
    int n = 0;
    for (Lease l : leases) {
      n += owner.equals(l.owner) ? 1 : 0;
    }
    return n;
  }

  public int heartbeat(String nodeId, Duration ttl) {
    nodes.computeIfAbsent(nodeId, k -> new Node()).heartbeatAt = clock.instant();
    return forgetDeadAndCountLive(ttl);
  }

  public int heartbeat(String nodeId, String instance, Duration ttl) {
    Node n = nodes.get(nodeId);
    if (n != null && !Objects.equals(n.instance, instance)) {
      throw new NodeIdInUseException(nodeId, "another run registered this node id while this relay's heartbeat"
          + " was older than the lease TTL of " + ttl + " (this relay was frozen or cut off)");
    }
    if (n == null) {
      n = new Node();
      n.instance = instance;
      nodes.put(nodeId, n);
    }
    n.heartbeatAt = clock.instant();
    return forgetDeadAndCountLive(ttl);
  }

  public Optional<Instant> register(String nodeId, String instance, Duration ttl) {
    Instant now = clock.instant();
    Node n = nodes.get(nodeId);
    if (n == null || Objects.equals(n.instance, instance) || !n.heartbeatAt.isAfter(now.minus(ttl))) {
      n = new Node();
      n.instance = instance;
      n.heartbeatAt = now;
      nodes.put(nodeId, n);
    }
    return instance.equals(n.instance) ? Optional.empty() : Optional.of(n.heartbeatAt);
  }

  public void leave(String nodeId) {
    nodes.remove(nodeId);
  }

  public void leave(String nodeId, String instance) {
    Node n = nodes.get(nodeId);
    if (n != null && Objects.equals(n.instance, instance)) {
      nodes.remove(nodeId);
    }
  }

  /** Node id → the instance that holds it ({@code null} for a node without instances). */
  public Map<String, String> nodes() {
    Map<String, String> out = new LinkedHashMap<>();
    nodes.forEach((id, n) -> out.put(id, n.instance));
    return out;
  }

  private int forgetDeadAndCountLive(Duration ttl) {
    Instant now = clock.instant();
    Instant dead = now.minus(ttl.multipliedBy(10));
    nodes.values().removeIf(n -> n.heartbeatAt.isBefore(dead));
    Instant live = now.minus(ttl);
    return (int) nodes.values().stream().filter(n -> n.heartbeatAt.isAfter(live)).count();
  }
}
