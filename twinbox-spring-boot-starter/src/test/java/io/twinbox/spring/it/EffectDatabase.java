package io.twinbox.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.twinbox.spi.OutboxMessage;
import io.twinbox.testkit.LocalServers;
import io.twinbox.testkit.PostgresDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A fresh PostgreSQL database with the order and effect tables of {@link BrokerItApplication}, and
 * the steps the broker tests share: place orders (half of them rolled back), wait for their effects,
 * check that each committed one was applied exactly once.
 */
record EffectDatabase(PostgresDatabase db, JdbcTemplate jdbc) {

  static EffectDatabase create() {
    LocalServers.require("PostgreSQL", "127.0.0.1", 5432);
    PostgresDatabase db = PostgresDatabase.create();
    JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
    jdbc.execute("CREATE TABLE spring_it_order (id varchar(64) PRIMARY KEY, status varchar(32) NOT NULL)");
    jdbc.execute("CREATE TABLE spring_it_effect (message_id uuid NOT NULL, order_id varchar(64) NOT NULL,"
        + " payload text NOT NULL)");
    return new EffectDatabase(db, jdbc);
  }

  List<String> properties() {
    return List.of("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user(),
        "spring.datasource.password=" + db.password());
  }

  /** Places {@code n} orders that commit and {@code n} that roll back; returns the committed events' ids. */
  static Set<UUID> placeOrders(Orders orders, int n) {
    Set<UUID> committed = new HashSet<>();
    for (int i = 0; i < n; i++) {
      committed.add(orders.placeWithJdbc("ok-" + i, false));
      String bad = "bad-" + i;
      assertThatThrownBy(() -> orders.placeWithJdbc(bad, true)).isInstanceOf(IllegalStateException.class);
    }
    assertThat(orders.rolledBack()).hasSize(n).doesNotContainAnyElementsOf(committed);
    return committed;
  }

  /** Waits until every committed event has its effect and the outbox is empty. */
  void awaitEffects(Set<UUID> committed) {
    Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
        Set.copyOf(jdbc.queryForList("SELECT message_id FROM spring_it_effect", UUID.class)).containsAll(committed)
            && jdbc.queryForObject("SELECT count(*) FROM twinbox_outbox", Long.class) == 0);
  }

  /** Each committed event applied exactly once, no other event applied, nothing parked. */
  void assertAppliedExactlyOnce(Set<UUID> committed, List<UUID> rolledBack) {
    List<UUID> applied = jdbc.queryForList("SELECT message_id FROM spring_it_effect", UUID.class);
    assertThat(applied).hasSameSizeAs(committed).containsExactlyInAnyOrderElementsOf(committed)
        .doesNotContainAnyElementsOf(rolledBack);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM spring_it_order WHERE id LIKE 'bad-%'", Long.class)).isZero();
    assertThat(jdbc.queryForObject("SELECT count(*) FROM twinbox_inbox_parked", Long.class)).isZero();
  }

  /**
   * The applied {@code OrderPlaced} event {@code id} as the relay handed it to the transport (same id,
   * type, version, payload as received, and CloudEvents source), for publishing it a second time.
   */
  OutboxMessage againAsPublished(UUID id) {
    Map<String, Object> effect = jdbc.queryForMap("SELECT order_id, payload FROM spring_it_effect WHERE message_id = ?",
        id);
    return new OutboxMessage(0, id, "Order", (String) effect.get("order_id"), 1, 0, "OrderPlaced", 1,
        (String) effect.get("payload"), Map.of(), null, null, null, Instant.now(), Instant.now(), 0, "/twinbox");
  }

  void close() {
    db.close();
  }
}
