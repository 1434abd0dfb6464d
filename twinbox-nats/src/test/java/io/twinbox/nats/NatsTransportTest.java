package io.twinbox.nats;

import io.twinbox.testkit.contract.TransportContract;
import io.twinbox.testkit.contract.TransportFixture;

/** The transport contract on the local NATS JetStream server. */
class NatsTransportTest extends TransportContract {
  @Override
  protected TransportFixture createFixture() {
    try {
      return new NatsFixture();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot set up NATS", e);
    }
  }
}
