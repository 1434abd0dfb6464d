package io.twinbox.jdbc;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.testkit.MariaDbDatabase;
import org.junit.jupiter.api.Test;

/** MariaDB 10.6+ is accepted; older MariaDB and MySQL are refused with a message that says why. */
class MariaDbVersionCheckTest {

  @Test
  void theLocalServerPasses() {
    try (MariaDbDatabase db = MariaDbDatabase.create()) {
      assertThatCode(() -> JdbcStore.builder(db.dataSource()).build()).doesNotThrowAnyException();
    }
  }

  @Test
  void supportedVersionsPass() {
    assertThatCode(() -> MariaDbDialect.checkVersion("MariaDB", "10.6.16-MariaDB")).doesNotThrowAnyException();
    assertThatCode(() -> MariaDbDialect.checkVersion("MariaDB", "10.11.19-MariaDB-0+deb12u1"))
        .doesNotThrowAnyException();
    assertThatCode(() -> MariaDbDialect.checkVersion("MariaDB", "11.4.2-MariaDB")).doesNotThrowAnyException();
    // The old protocol's prefix is not the version.
    assertThatCode(() -> MariaDbDialect.checkVersion("MySQL", "5.5.5-10.11.6-MariaDB")).doesNotThrowAnyException();
  }

  @Test
  void olderMariaDbIsRefused() {
    assertThatThrownBy(() -> MariaDbDialect.checkVersion("MariaDB", "10.5.23-MariaDB"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("MariaDB 10.6 or newer").hasMessageContaining("10.5.23");
    assertThatThrownBy(() -> MariaDbDialect.checkVersion("MySQL", "5.5.5-10.3.39-MariaDB"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("10.3.39");
  }

  @Test
  void mySqlIsRefused() {
    assertThatThrownBy(() -> MariaDbDialect.checkVersion("MySQL", "8.0.36"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("MySQL 8.0.36").hasMessageContaining("RETURNING");
  }
}
