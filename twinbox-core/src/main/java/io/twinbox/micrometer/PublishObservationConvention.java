package io.twinbox.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the relay's publish observations; implement it (or extend {@link
 * DefaultPublishObservationConvention}) to change them, and pass it to {@link ObservedTransport}.
 */
public interface PublishObservationConvention extends ObservationConvention<PublishContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof PublishContext;
  }
}
