/**
 * Spring Boot integration: {@link io.twinbox.spring.TransactionalOutbox} for writes in
 * {@code @Transactional} methods, the relay and inbox consumers as lifecycle beans, Actuator
 * health, configured by {@code twinbox.*} properties bound through the settings catalogues ({@link
 * io.twinbox.spring.TwinboxSettings}).
 */
package io.twinbox.spring;
