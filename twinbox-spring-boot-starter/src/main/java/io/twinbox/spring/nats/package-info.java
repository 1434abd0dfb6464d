/** The NATS JetStream part of the Spring Boot integration: the inbox consumer lifecycle bean. */
package io.twinbox.spring.nats;
