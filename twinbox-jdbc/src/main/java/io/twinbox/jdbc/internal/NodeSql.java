package io.twinbox.jdbc.internal;

import io.twinbox.NodeIdInUseException;
import io.twinbox.spi.PartitionLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The relay-node and lease statements both dialects run the same way: leaving (with or without
 * the instance), the plain heartbeat's upsert (its text is the dialect's), and reading leases back.
 * Part of the dialect layer.
 */
public final class NodeSql {
  private static final String LEAVE = "DELETE FROM twinbox_relay_node WHERE node_id = ?";
  private static final String LEAVE_INSTANCE = "DELETE FROM twinbox_relay_node WHERE node_id = ? AND instance = ?";

  private NodeSql() {}

  public static void leave(Connection c, String nodeId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEAVE)) {
      ps.setString(1, nodeId);
      ps.executeUpdate();
    }
  }

  public static void leave(Connection c, String nodeId, String instance) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEAVE_INSTANCE)) {
      ps.setString(1, nodeId);
      ps.setString(2, instance);
      ps.executeUpdate();
    }
  }

  /** Runs a dialect's heartbeat upsert, whose one parameter is the node id. */
  public static void beat(Connection c, String heartbeatSql, String nodeId) throws SQLException {
    try (PreparedStatement up = c.prepareStatement(heartbeatSql)) {
      up.setString(1, nodeId);
      up.executeUpdate();
    }
  }

  /** The heartbeat of a relay whose node id another run took over while it was frozen or cut off. */
  public static NodeIdInUseException takenOver(String nodeId, Duration ttl) {
    return new NodeIdInUseException(nodeId, "another run registered this node id while this relay's heartbeat"
        + " was older than the lease TTL of " + ttl + " (this relay was frozen or cut off)");
  }

  /** The {@code (partition_no, epoch)} rows a lease statement returns. */
  public static List<PartitionLease> leases(PreparedStatement ps) throws SQLException {
    List<PartitionLease> result = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        result.add(new PartitionLease(rs.getInt(1), rs.getLong(2)));
      }
    }
    return result;
  }
}
