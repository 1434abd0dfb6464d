package io.twinbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Self-test of the checker: a clean log passes, and every injected anomaly is found. */
class DeliveryCheckerTest {
  private static final int AGGREGATES = 5;
  private static final int PER_AGGREGATE = 20;
  private static final int UNORDERED = 10;
  private static final int PARTITIONS = 4;

  private final Random random = new Random(42);
  private final List<ExpectedEvent> committed = new ArrayList<>();
  private final List<UUID> rolledBack = List.of(new UUID(7, 7), new UUID(7, 8));
  private final Map<Integer, Long> nextOffset = new HashMap<>();

  /** The clean log: every committed event once, each aggregate in order, partitions interleaved. */
  private List<Delivery> cleanLog() {
    for (int a = 0; a < AGGREGATES; a++) {
      for (long s = 1; s <= PER_AGGREGATE; s++) {
        committed.add(ExpectedEvent.ordered(new UUID(a, s), "Order", "order-" + a, s));
      }
    }
    for (int u = 0; u < UNORDERED; u++) {
      committed.add(ExpectedEvent.unordered(new UUID(100, u), "Audit"));
    }
    // Publish in an order that interleaves aggregates but keeps each one's sequence.
    List<List<ExpectedEvent>> queues = new ArrayList<>();
    for (int a = 0; a < AGGREGATES; a++) {
      queues.add(new ArrayList<>(committed.subList(a * PER_AGGREGATE, (a + 1) * PER_AGGREGATE)));
    }
    List<ExpectedEvent> unordered = new ArrayList<>(committed.subList(
        AGGREGATES * PER_AGGREGATE, committed.size()));
    Collections.shuffle(unordered, random);
    queues.add(unordered);
    List<Delivery> log = new ArrayList<>();
    while (queues.stream().anyMatch(q -> !q.isEmpty())) {
      List<ExpectedEvent> queue = queues.get(random.nextInt(queues.size()));
      if (!queue.isEmpty()) {
        log.add(publish(queue.remove(0)));
      }
    }
    return log;
  }

  private Delivery publish(ExpectedEvent e) {
    String key = e.ordered() ? e.aggregateId() : e.id().toString();
    return record(Math.floorMod(key.hashCode(), PARTITIONS), key, e.id(), e.aggregateType(),
        e.aggregateId(), e.sequence());
  }

  private Delivery record(int partition, String key, UUID id, String type, String aggregateId,
      long sequence) {
    long offset = nextOffset.merge(partition, 1L, Long::sum) - 1;
    return new Delivery("events", partition, offset, key, id, type, aggregateId, sequence);
  }

  private Delivery find(List<Delivery> log, String aggregateId, long sequence) {
    return log.stream()
        .filter(d -> aggregateId.equals(d.aggregateId()) && d.sequence() == sequence)
        .findFirst().orElseThrow();
  }

  @Test
  void cleanLogPasses() {
    List<Delivery> log = cleanLog();
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).as(result.describe(5)).isTrue();
    assertThat(result.summary()).isEqualTo("committed=110 delivered=110 lost=0 phantom=0 "
        + "unexpected=0 duplicates=0 orderViolations=0 headerMismatches=0");
    assertThat(result.distinctDelivered()).isEqualTo(110);
    assertThat(result).hasToString(result.summary());
  }

  @Test
  void consumptionOrderAcrossAndWithinPartitionsDoesNotMatterOnlyOffsets() {
    List<Delivery> log = cleanLog();
    // A reader may hand records over partition by partition, even out of offset order.
    Collections.reverse(log);
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).as(result.describe(5)).isTrue();
  }

  @Test
  void deletedDeliveryIsLostAndItsAggregateSkippedASequence() {
    List<Delivery> log = cleanLog();
    Delivery gone = find(log, "order-2", 7);
    log.remove(gone);
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).isFalse();
    assertThat(result.lostIds()).containsExactly(gone.id());
    assertThat(result.lost()).isEqualTo(1);
    assertThat(result.delivered()).isEqualTo(109);
    // Sequence 8 went out while 7 was missing: the relay must hold an aggregate back.
    assertThat(result.orderViolations()).isEqualTo(1);
    assertThat(result.outOfOrder().get(0).sequence()).isEqualTo(8);
    assertThat(result.outOfOrder().get(0).reason()).contains("7 was still missing");
    assertThat(result.describe(5)).contains("lost: " + gone.id());
  }

  @Test
  void lostUnorderedEventIsNoOrderViolation() {
    List<Delivery> log = cleanLog();
    Delivery gone = log.stream().filter(d -> d.aggregateId() == null).findFirst().orElseThrow();
    log.remove(gone);
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.lostIds()).containsExactly(gone.id());
    assertThat(result.orderViolations()).isZero();
  }

  @Test
  void duplicatesAreCountedButAllowed() {
    List<Delivery> log = cleanLog();
    // The relay republished sequences 3..5 of one aggregate after it had already sent 9.
    for (long s = 3; s <= 5; s++) {
      Delivery original = find(log, "order-1", s);
      log.add(record(original.partition(), original.key(), original.id(),
          original.aggregateType(), original.aggregateId(), s));
    }
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.duplicates()).isEqualTo(3);
    assertThat(result.delivered()).isEqualTo(113);
    assertThat(result.distinctDelivered()).isEqualTo(110);
    assertThat(result.orderViolations()).isZero();
    assertThat(result.ok()).as(result.describe(5)).isTrue();
  }

  @Test
  void swappedSequencesAreOrderViolations() {
    List<Delivery> log = cleanLog();
    Delivery third = find(log, "order-3", 3);
    Delivery fourth = find(log, "order-3", 4);
    log.set(log.indexOf(third), withOffset(third, fourth.offset()));
    log.set(log.indexOf(fourth), withOffset(fourth, third.offset()));
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).isFalse();
    assertThat(result.lost()).isZero();
    assertThat(result.duplicates()).isZero();
    // 4 skipped the missing 3, then 3 came after 4.
    assertThat(result.outOfOrder()).extracting(OrderViolation::sequence).containsExactly(4L, 3L);
    assertThat(result.outOfOrder()).extracting(OrderViolation::aggregateId)
        .containsOnly("order-3");
    assertThat(result.outOfOrder().get(1).reason()).isEqualTo("sequence 3 delivered after 4");
  }

  @Test
  void rolledBackDeliveryIsPhantom() {
    List<Delivery> log = cleanLog();
    UUID ghost = rolledBack.get(1);
    log.add(record(0, "order-9", ghost, "Order", "order-9", 1));
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).isFalse();
    assertThat(result.phantomIds()).containsExactly(ghost);
    assertThat(result.phantom()).isEqualTo(1);
    assertThat(result.unexpected()).isZero();
    assertThat(result.lost()).isZero();
  }

  @Test
  void unknownIdIsUnexpected() {
    List<Delivery> log = cleanLog();
    UUID stranger = UUID.randomUUID();
    log.add(record(1, stranger.toString(), stranger, "Audit", null, 0));
    log.add(record(1, stranger.toString(), stranger, "Audit", null, 0));
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).isFalse();
    assertThat(result.unexpectedIds()).containsExactly(stranger);
    assertThat(result.phantom()).isZero();
    assertThat(result.duplicates()).isEqualTo(1);
    assertThat(result.summary()).contains("unexpected=1");
  }

  @Test
  void wrongHeaderValuesAreMismatches() {
    List<Delivery> log = cleanLog();
    Delivery right = find(log, "order-0", 5);
    Delivery wrong = new Delivery(right.topic(), right.partition(), right.offset(), right.key(),
        right.id(), right.aggregateType(), right.aggregateId(), 50);
    log.set(log.indexOf(right), wrong);
    CheckResult result = DeliveryChecker.check(committed, rolledBack, log);
    assertThat(result.ok()).isFalse();
    assertThat(result.headerMismatches()).isEqualTo(1);
    assertThat(result.mismatched().get(0).delivery()).isEqualTo(wrong);
    // Order is judged by the committed sequence, so the bad header alone breaks no order.
    assertThat(result.orderViolations()).isZero();
  }

  @Test
  void rejectsAnIdBothCommittedAndRolledBack() {
    ExpectedEvent event = ExpectedEvent.ordered(new UUID(1, 1), "Order", "o", 1);
    assertThatThrownBy(() -> DeliveryChecker.check(List.of(event), Set.of(event.id()), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both committed and rolled back");
  }

  @Test
  void emptyDeliveriesLoseEverything() {
    cleanLog();
    CheckResult result = DeliveryChecker.check(committed, rolledBack, List.of());
    assertThat(result.lost()).isEqualTo(110);
    assertThat(result.orderViolations()).isZero();
    assertThat(result.describe(2)).contains("lost: ... 108 more");
  }

  private static Delivery withOffset(Delivery d, long offset) {
    return new Delivery(d.topic(), d.partition(), offset, d.key(), d.id(), d.aggregateType(),
        d.aggregateId(), d.sequence());
  }
}
