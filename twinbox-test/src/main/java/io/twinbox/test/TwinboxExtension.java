package io.twinbox.test;

import io.twinbox.spi.OutboxStore;
import io.twinbox.testing.InMemoryStore;
import java.util.Objects;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A {@link TwinboxProbe} for JUnit 5 tests: each test starts with nothing recorded as published
 * (and, on the in-memory store, an empty store); test methods may take the probe as a parameter.
 *
 * <pre>{@code
 * @RegisterExtension
 * static TwinboxExtension twinbox = TwinboxExtension.inMemory();   // or .on(JdbcStore.builder(ds).build())
 *
 * @Test
 * void placingAnOrderAnnouncesIt() {
 *   new Orders(twinbox.store()).place("42");
 *   twinbox.probe().drain();
 *   twinbox.probe().assertPublished(EventMatcher.type("OrderCreated").aggregate("Order", "42"));
 * }
 * }</pre>
 *
 * Thread-safe as the probe is.
 */
public final class TwinboxExtension implements BeforeEachCallback, ParameterResolver {
  private final TwinboxProbe probe;
  private final InMemoryStore memory;

  private TwinboxExtension(TwinboxProbe probe, InMemoryStore memory) {
    this.probe = probe;
    this.memory = memory;
  }

  /** On a fresh {@link InMemoryStore}, cleared before each test. */
  public static TwinboxExtension inMemory() {
    InMemoryStore store = InMemoryStore.create();
    return new TwinboxExtension(TwinboxProbe.of(store), store);
  }

  /** On {@code store} (e.g. a {@code JdbcStore} on the test's DataSource); its rows are left alone. */
  public static TwinboxExtension on(OutboxStore store) {
    return new TwinboxExtension(TwinboxProbe.of(Objects.requireNonNull(store, "store cannot be null")), null);
  }

  /** On the store and recording transport of {@code probe}. */
  public static TwinboxExtension of(TwinboxProbe probe) {
    return new TwinboxExtension(Objects.requireNonNull(probe, "probe cannot be null"), null);
  }

  /** The probe. */
  public TwinboxProbe probe() {
    return probe;
  }

  /** The store the probe drains: the in-memory store for {@link #inMemory()}. */
  public OutboxStore store() {
    return probe.store();
  }

  /** The in-memory store of {@link #inMemory()}, with its data source for the code under test. */
  public InMemoryStore memoryStore() {
    if (memory == null) {
      throw new IllegalStateException("memoryStore() is only for TwinboxExtension.inMemory()");
    }
    return memory;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (memory != null) {
      memory.clear();
    }
    probe.reset();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TwinboxProbe.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return probe;
  }
}
