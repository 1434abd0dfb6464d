package io.twinbox.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.twinbox.Health;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Single flight and the TTL of the cached {@code /health} verdict, on a clock the test moves. */
class HealthCacheTest {
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger checks = new AtomicInteger();

  private Health.Report report(boolean up) {
    return new Health.Report(up, up ? List.of() : List.of("down " + checks.get()), null);
  }

  @Test
  void callersDuringACheckWaitForItsVerdictInsteadOfStartingTheirOwn() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    HealthCache cache = new HealthCache(() -> {
      checks.incrementAndGet();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return report(true);
    }, Duration.ofSeconds(2), now::get);
    int callers = 20;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<Thread> threads = new ArrayList<>();
    List<Future<Health.Report>> answers = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      answers.add(pool.submit(() -> {
        synchronized (threads) {
          threads.add(Thread.currentThread());
        }
        return cache.get();
      }));
    }
    // Every caller is inside get(): one runs the check, the others wait for it.
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      synchronized (threads) {
        return threads.size() == callers && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING
            || t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.BLOCKED);
      }
    });
    release.countDown();
    Health.Report first = answers.get(0).get();
    for (Future<Health.Report> a : answers) {
      assertThat(a.get()).isSameAs(first);
    }
    assertThat(checks.get()).isEqualTo(1);
    pool.shutdown();
  }

  @Test
  void theVerdictIsReusedForTheTtlThenCheckedAgain() {
    HealthCache cache = new HealthCache(() -> {
      checks.incrementAndGet();
      return report(checks.get() % 2 == 0);
    }, Duration.ofSeconds(2), now::get);
    Health.Report first = cache.get();
    now.addAndGet(Duration.ofMillis(1_999).toNanos());
    assertThat(cache.get()).isSameAs(first);
    assertThat(checks.get()).isEqualTo(1);
    now.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(cache.get()).isNotSameAs(first);
    assertThat(checks.get()).isEqualTo(2);
  }

  @Test
  void aCheckThatThrowsIsDownNotAnError() {
    HealthCache cache = new HealthCache(() -> {
      throw new IllegalStateException("boom postgresql://u:secret@h");
    }, Duration.ofSeconds(2), now::get);
    Health.Report r = cache.get();
    assertThat(r.up()).isFalse();
    assertThat(r.reasons()).containsExactly("health check failed: IllegalStateException");
  }

  @Test
  void anErrorInTheCheckDoesNotLeaveLaterCallersWaitingForever() {
    HealthCache cache = new HealthCache(() -> {
      if (checks.incrementAndGet() == 1) {
        throw new LinkageError("a broken class path");
      }
      return report(true);
    }, Duration.ofSeconds(2), now::get);
    org.assertj.core.api.Assertions.assertThatThrownBy(cache::get).isInstanceOf(LinkageError.class);
    assertThat(cache.get().up()).as("the next caller checks again").isTrue();
    assertThat(checks.get()).isEqualTo(2);
  }
}
