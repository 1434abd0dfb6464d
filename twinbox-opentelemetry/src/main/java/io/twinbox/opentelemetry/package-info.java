/**
 * OpenTelemetry tracing for Twinbox, on the OpenTelemetry API alone: {@link
 * io.twinbox.opentelemetry.TracingTransport} wraps the relay's transport (a producer span per
 * publish, its context on the wire), {@link io.twinbox.opentelemetry.TracingInboxHandler} wraps an
 * inbox handler (a consumer span continuing the trace). Without an SDK both are no-ops.
 */
package io.twinbox.opentelemetry;
