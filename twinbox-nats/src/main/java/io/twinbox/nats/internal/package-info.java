/**
 * Internals of the NATS transport: the CloudEvents NATS mapping, failure classification, subject
 * names. Not an API: anything here may change in any release.
 */
package io.twinbox.nats.internal;
