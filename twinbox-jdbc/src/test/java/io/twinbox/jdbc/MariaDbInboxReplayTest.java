package io.twinbox.jdbc;

import io.twinbox.testkit.contract.InboxReplayContract;
import io.twinbox.testkit.contract.StoreFixture;

/** Operators' replays of parked messages carried out by the running consumer, on MariaDB. */
class MariaDbInboxReplayTest extends InboxReplayContract {
  @Override
  protected StoreFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
