package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * R1 with jOOQ and no Spring: an event written inside {@code DSLContext.transaction(...)} through
 * {@code trx.dsl().connection(c -> outbox.write(c, event))} joins jOOQ's transaction, so it is
 * published if and only if that transaction commits (docs/jooq-jpa.md).
 */
class JooqTransactionTest {
  private static FrameworkOutbox fx;
  private static DSLContext dsl;

  @BeforeAll
  static void database() {
    fx = new FrameworkOutbox();
    dsl = DSL.using(fx.db.dataSource(), TestDb.MARIADB ? SQLDialect.MARIADB : SQLDialect.POSTGRES);
    dsl.createTableIfNotExists("jooq_order").column("id", SQLDataType.VARCHAR(64).notNull())
        .primaryKey("id").execute();
  }

  @AfterAll
  static void drop() {
    fx.close();
  }

  @Test
  void tenCommittedArePublishedTenRolledBackNever() throws Exception {
    Set<UUID> committed = new HashSet<>();
    Set<UUID> rolledBack = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      String ok = "ok-" + i;
      dsl.transaction(trx -> {
        trx.dsl().insertInto(table(name("jooq_order")), field(name("id"))).values(ok).execute();
        trx.dsl().connection(c -> committed.add(fx.outbox.write(c, FrameworkOutbox.orderPlaced(ok))));
      });
      String bad = "bad-" + i;
      assertThatThrownBy(() -> dsl.transaction(trx -> {
        trx.dsl().insertInto(table(name("jooq_order")), field(name("id"))).values(bad).execute();
        trx.dsl().connection(c -> rolledBack.add(fx.outbox.write(c, FrameworkOutbox.orderPlaced(bad))));
        throw new IllegalStateException("the business rule refuses " + bad);
      })).isInstanceOf(IllegalStateException.class);
    }
    assertThat(rolledBack).hasSize(10);

    Set<UUID> published = fx.drain();

    assertThat(published).isEqualTo(committed).hasSize(10).doesNotContainAnyElementsOf(rolledBack);
    assertThat(fx.outboxIds("PUBLISHED")).isEqualTo(committed);
    assertThat(fx.count("jooq_order")).isEqualTo(10);
  }
}
