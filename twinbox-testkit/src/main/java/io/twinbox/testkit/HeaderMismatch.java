package io.twinbox.testkit;

/**
 * A delivered record whose aggregate type, aggregate id or sequence differs from the committed
 * event with the same message id: the wire format carried wrong values.
 *
 * <p>Immutable and thread-safe.
 *
 * @param expected the committed event
 * @param delivery the record that carried its id
 */
public record HeaderMismatch(ExpectedEvent expected, Delivery delivery) {

  @Override
  public String toString() {
    return expected.id() + " at " + delivery.position() + ": expected " + expected.aggregateType()
        + "/" + expected.aggregateId() + "#" + expected.sequence() + ", got "
        + delivery.aggregateType() + "/" + delivery.aggregateId() + "#" + delivery.sequence();
  }
}
