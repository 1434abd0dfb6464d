package io.twinbox.testing;

import io.twinbox.contract.OutboxWriteContract;
import io.twinbox.contract.StoreFixture;

/** The OutboxWriteContract on the in-memory store: no server. */
class InMemoryOutboxWriteTest extends OutboxWriteContract {
  @Override
  protected StoreFixture createFixture() {
    return new InMemoryFixture();
  }
}
