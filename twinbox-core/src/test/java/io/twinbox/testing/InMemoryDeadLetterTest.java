package io.twinbox.testing;

import io.twinbox.contract.DeadLetterContract;
import io.twinbox.contract.StoreFixture;

/** The DeadLetterContract on the in-memory store: no server. */
class InMemoryDeadLetterTest extends DeadLetterContract {
  @Override
  protected StoreFixture createFixture() {
    return new InMemoryFixture();
  }
}
