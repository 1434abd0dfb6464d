package io.twinbox.testkit;

/**
 * A first delivery of a committed, ordered event that came out of sequence: its sequence is not
 * greater than the previous first delivery of the same aggregate, or a committed sequence of that
 * aggregate between the previous first delivery and this one had not been delivered yet.
 *
 * <p>Immutable and thread-safe.
 *
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param sequence the committed sequence of the event delivered out of order
 * @param reason what was wrong, e.g. {@code "sequence 4 delivered while 3 was still missing"}
 * @param delivery the offending record
 */
public record OrderViolation(String aggregateType, String aggregateId, long sequence,
    String reason, Delivery delivery) {

  @Override
  public String toString() {
    return aggregateType + "/" + aggregateId + ": " + reason + " at " + delivery.position();
  }
}
