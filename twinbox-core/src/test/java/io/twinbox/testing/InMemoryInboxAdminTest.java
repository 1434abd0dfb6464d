package io.twinbox.testing;

import io.twinbox.contract.InboxAdminContract;
import io.twinbox.contract.StoreFixture;

/** The InboxAdminContract on the in-memory store: no server. */
class InMemoryInboxAdminTest extends InboxAdminContract {
  @Override
  protected StoreFixture createFixture() {
    return new InMemoryFixture();
  }
}
