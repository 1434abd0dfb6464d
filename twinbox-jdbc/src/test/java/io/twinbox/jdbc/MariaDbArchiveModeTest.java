package io.twinbox.jdbc;

import io.twinbox.testkit.contract.Sql;

/** {@link ArchiveModeTests} on MariaDB: a batch is locked, copied and deleted in one transaction. */
class MariaDbArchiveModeTest extends ArchiveModeTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.mariadb();
  }

  @Override
  void failDeletesOf(long position) throws Exception {
    Sql.exec(fixture.dataSource(), "CREATE TRIGGER twinbox_test_refuse_delete BEFORE DELETE ON twinbox_outbox"
        + " FOR EACH ROW BEGIN IF OLD.position = " + position + " THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT ="
        + " 'refused for the test'; END IF; END");
  }

  @Override
  void allowDeletes() throws Exception {
    Sql.exec(fixture.dataSource(), "DROP TRIGGER IF EXISTS twinbox_test_refuse_delete");
  }
}
