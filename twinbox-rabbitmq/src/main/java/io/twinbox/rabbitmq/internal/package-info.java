/**
 * Internals of the RabbitMQ transport: the CloudEvents AMQP mapping, confirm tracking, connection
 * handling. Not an API: anything here may change in any release.
 */
package io.twinbox.rabbitmq.internal;
