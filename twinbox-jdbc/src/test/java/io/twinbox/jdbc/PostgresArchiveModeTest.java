package io.twinbox.jdbc;

import io.twinbox.testkit.contract.Sql;

/** {@link ArchiveModeTests} on PostgreSQL: a batch is one DELETE ... RETURNING / INSERT statement. */
class PostgresArchiveModeTest extends ArchiveModeTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.postgres();
  }

  @Override
  void failDeletesOf(long position) throws Exception {
    Sql.exec(fixture.dataSource(), "CREATE OR REPLACE FUNCTION twinbox_test_refuse_delete() RETURNS trigger"
        + " LANGUAGE plpgsql AS $$ BEGIN IF OLD.position = " + position + " THEN RAISE EXCEPTION 'refused for the"
        + " test'; END IF; RETURN OLD; END $$");
    Sql.exec(fixture.dataSource(), "CREATE TRIGGER twinbox_test_refuse_delete BEFORE DELETE ON twinbox_outbox"
        + " FOR EACH ROW EXECUTE FUNCTION twinbox_test_refuse_delete()");
  }

  @Override
  void allowDeletes() throws Exception {
    Sql.exec(fixture.dataSource(), "DROP TRIGGER IF EXISTS twinbox_test_refuse_delete ON twinbox_outbox");
  }
}
