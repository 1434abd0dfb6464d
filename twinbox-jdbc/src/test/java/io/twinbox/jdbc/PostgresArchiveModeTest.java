package io.twinbox.jdbc;

/** {@link ArchiveModeTests} on Postgres. */
class PostgresArchiveModeTest extends ArchiveModeTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.postgres();
  }
}
