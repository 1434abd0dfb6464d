package io.twinbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * R1 with Hibernate and no Spring: an event written through {@code session.doWork(c ->
 * outbox.write(c, event))} — or {@code em.unwrap(Session.class).doWork(...)} from plain JPA — runs
 * on the session's connection inside its transaction, so it is published if and only if that
 * transaction commits (docs/jooq-jpa.md).
 */
class HibernateTransactionTest {
  private static FrameworkOutbox fx;
  private static SessionFactory sessions;

  /** The business entity. */
  @Entity(name = "JpaOrder")
  @Table(name = "jpa_order")
  public static class JpaOrder {
    @Id String id;

    protected JpaOrder() {}

    JpaOrder(String id) {
      this.id = id;
    }
  }

  @BeforeAll
  static void database() {
    fx = new FrameworkOutbox();
    Configuration cfg = new Configuration().addAnnotatedClass(JpaOrder.class);
    cfg.getProperties().put(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, fx.db.dataSource());
    cfg.setProperty(AvailableSettings.HBM2DDL_AUTO, "create");
    sessions = cfg.buildSessionFactory();
  }

  @AfterAll
  static void drop() {
    sessions.close();
    fx.close();
  }

  @Test
  void sessionDoWork_tenCommittedArePublishedTenRolledBackNever() throws Exception {
    Set<UUID> committed = new HashSet<>();
    Set<UUID> rolledBack = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      String ok = "session-ok-" + i;
      sessions.inTransaction(session -> {
        session.persist(new JpaOrder(ok));
        session.doWork(c -> committed.add(fx.outbox.write(c, FrameworkOutbox.orderPlaced(ok))));
      });
      String bad = "session-bad-" + i;
      assertThatThrownBy(() -> sessions.inTransaction(session -> {
        session.persist(new JpaOrder(bad));
        session.doWork(c -> rolledBack.add(fx.outbox.write(c, FrameworkOutbox.orderPlaced(bad))));
        throw new IllegalStateException("the business rule refuses " + bad);
      })).isInstanceOf(IllegalStateException.class);
    }
    assertPublishedExactly(committed, rolledBack, "session-");
  }

  @Test
  void jpaEntityManager_tenCommittedArePublishedTenRolledBackNever() throws Exception {
    Set<UUID> committed = new HashSet<>();
    Set<UUID> rolledBack = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      committed.add(placeWithJpa("jpa-ok-" + i, true));
      rolledBack.add(placeWithJpa("jpa-bad-" + i, false));
    }
    assertPublishedExactly(committed, rolledBack, "jpa-");
  }

  /** Plain JPA: persist and write the event in one resource-local transaction; commit or roll back. */
  private static UUID placeWithJpa(String orderId, boolean commit) {
    EntityManager em = sessions.createEntityManager();
    try {
      em.getTransaction().begin();
      em.persist(new JpaOrder(orderId));
      UUID[] id = new UUID[1];
      em.unwrap(Session.class).doWork(c -> id[0] = fx.outbox.write(c, FrameworkOutbox.orderPlaced(orderId)));
      if (commit) {
        em.getTransaction().commit();
      } else {
        em.getTransaction().rollback();
      }
      return id[0];
    } finally {
      em.close();
    }
  }

  private static void assertPublishedExactly(Set<UUID> committed, Set<UUID> rolledBack, String prefix)
      throws Exception {
    assertThat(rolledBack).hasSize(10);
    Set<UUID> published = fx.drain();
    assertThat(published).isEqualTo(committed).hasSize(10).doesNotContainAnyElementsOf(rolledBack);
    assertThat(fx.outboxIds("PUBLISHED")).containsAll(committed).doesNotContainAnyElementsOf(rolledBack);
    long orders = sessions.fromSession(s -> s.createSelectionQuery(
        "select count(*) from JpaOrder where id like :p", Long.class).setParameter("p", prefix + "%").getSingleResult());
    assertThat(orders).isEqualTo(10);
  }
}
