package io.twinbox.jdbc;

/** {@link ArchiveModeTests} on MariaDB. */
class MariaDbArchiveModeTest extends ArchiveModeTests {
  @Override
  JdbcFixture createFixture() {
    return JdbcFixture.mariadb();
  }
}
