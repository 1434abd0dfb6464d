package io.twinbox;

/**
 * Another relay that is alive runs under the same node id ({@code Relay.Builder.nodeId}, the
 * sidecar's {@code relay.node.id}, Spring's {@code twinbox.relay.node-id}). Two relays with one node
 * id would share every lease and both publish every partition, so the second is refused at
 * {@link Relay#start()}; and a relay whose node id was taken over by a later start (after it
 * stopped heartbeating for longer than the lease TTL) stops publishing and logs this error.
 *
 * <p>A restart of the same node after a crash is not refused: the old run's heartbeat lapses within
 * one lease TTL, and {@code start()} waits for that.
 */
public final class NodeIdInUseException extends TwinboxException {
  private static final long serialVersionUID = 1L;
  private final String nodeId;

  public NodeIdInUseException(String nodeId, String detail) {
    super("relay node id '" + nodeId + "' is in use by another relay: " + detail
        + "; give every relay its own node id (Relay.Builder.nodeId, relay.node.id in the sidecar,"
        + " twinbox.relay.node-id in Spring) or leave it unset for a generated one");
    this.nodeId = nodeId;
  }

  /** The node id in question. */
  public String nodeId() {
    return nodeId;
  }
}
