package io.twinbox.rabbitmq;

import io.twinbox.testkit.contract.TransportContract;
import io.twinbox.testkit.contract.TransportFixture;

/** The transport contract on the local RabbitMQ. */
class RabbitTransportTest extends TransportContract {
  @Override
  protected TransportFixture createFixture() {
    try {
      return new RabbitFixture();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot set up RabbitMQ", e);
    }
  }
}
