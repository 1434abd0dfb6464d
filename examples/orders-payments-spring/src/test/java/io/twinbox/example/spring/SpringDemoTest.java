package io.twinbox.example.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The example end to end on a small run: a real broker, a real database, every check holds. */
class SpringDemoTest {

  @Test
  void everyOrderSettlesAndEveryCheckHolds() {
    assertThat(SpringDemo.run(60, 10, 5_000)).isTrue();
  }
}
