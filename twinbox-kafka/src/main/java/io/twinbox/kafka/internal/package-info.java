/**
 * Internals of the Kafka transport: producer settings, CloudEvents encoding, failure
 * classification, producer replacement. Not an API: anything here may change in any release.
 */
package io.twinbox.kafka.internal;
