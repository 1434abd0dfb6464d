/**
 * Micrometer meters for Twinbox, present only when Micrometer is on the class path: {@link
 * io.twinbox.micrometer.RelayMetrics} and {@link io.twinbox.micrometer.InboxMetrics} are listeners,
 * {@link io.twinbox.micrometer.OutboxMetrics} reads the table. The engine never imports Micrometer.
 */
package io.twinbox.micrometer;
