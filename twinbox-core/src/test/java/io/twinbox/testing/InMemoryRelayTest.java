package io.twinbox.testing;

import io.twinbox.contract.RelayContract;
import io.twinbox.contract.StoreFixture;
import java.util.UUID;
import javax.sql.DataSource;

/** The RelayContract on the in-memory store: no server. */
class InMemoryRelayTest extends RelayContract {
  private InMemoryFixture fixture;

  @Override
  protected StoreFixture createFixture() {
    fixture = new InMemoryFixture();
    return fixture;
  }

  @Override
  protected String spoilRow(DataSource ds, UUID id) {
    fixture.memoryStore().spoil(id, "headers: is a JSON null, not an object");
    return "headers";
  }
}
