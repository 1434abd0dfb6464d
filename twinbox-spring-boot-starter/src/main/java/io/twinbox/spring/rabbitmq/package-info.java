/** The RabbitMQ part of the Spring Boot integration: the inbox consumers' lifecycle bean. */
package io.twinbox.spring.rabbitmq;
