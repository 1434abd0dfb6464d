package io.twinbox.testing;

import io.twinbox.contract.AdminContract;
import io.twinbox.contract.StoreFixture;

/** The AdminContract on the in-memory store: no server. */
class InMemoryAdminTest extends AdminContract {
  @Override
  protected StoreFixture createFixture() {
    return new InMemoryFixture();
  }
}
