package io.twinbox.spring;

import io.twinbox.Health;
import io.twinbox.OutboxStatus;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;

/**
 * Actuator health of the outbox ({@code twinbox}), from {@link Health}: DOWN when the oldest
 * pending event is older than {@code twinbox.health.max-oldest-pending-age}, when events pend but
 * no live relay holds a lease, when the application's relay stopped for good ({@link
 * io.twinbox.Relay#fault()}, a WAL relay whose slot was lost), or when the outbox cannot be read.
 * Details: the counts of the
 * {@link OutboxStatus} and the reasons.
 */
public class TwinboxHealthIndicator extends AbstractHealthIndicator {
  private final Health health;

  public TwinboxHealthIndicator(Health health) {
    super("Twinbox health check failed");
    this.health = Objects.requireNonNull(health, "health cannot be null");
  }

  @Override
  protected void doHealthCheck(org.springframework.boot.health.contributor.Health.Builder builder) {
    Health.Report report = health.check();
    if (report.up()) {
      builder.up();
    } else {
      builder.down().withDetail("reasons", report.reasons());
    }
    OutboxStatus s = report.status();
    if (s != null) {
      builder.withDetail("pending", s.pending())
          .withDetail("retrying", s.retrying())
          .withDetail("failed", s.failed())
          .withDetail("heldAggregates", s.heldAggregates())
          .withDetail("oldestPendingAgeMillis", s.oldestPendingAge().toMillis())
          .withDetail("relays", s.leaseOwners().size())
          .withDetail("unownedPartitions", s.unownedPartitions());
    }
  }
}
