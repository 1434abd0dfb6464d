package io.twinbox.testing;

import io.twinbox.contract.InboxStoreContract;
import io.twinbox.contract.StoreFixture;

/** The InboxStoreContract on the in-memory store: no server. */
class InMemoryInboxStoreTest extends InboxStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new InMemoryFixture();
  }
}
