package io.twinbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the inbox handler's observations; implement it (or extend {@link
 * DefaultProcessObservationConvention}) to change them, and pass it to {@link ObservedInboxHandler}.
 */
public interface ProcessObservationConvention extends ObservationConvention<ProcessContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof ProcessContext;
  }
}
