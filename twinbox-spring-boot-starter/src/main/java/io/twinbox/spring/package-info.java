/**
 * Spring Boot integration: {@link io.twinbox.spring.TransactionalOutbox} for writes in
 * {@code @Transactional} methods, the relay and inbox consumers as lifecycle beans, Actuator
 * health, configured by {@link io.twinbox.spring.TwinboxProperties} ({@code twinbox.*}).
 */
package io.twinbox.spring;
