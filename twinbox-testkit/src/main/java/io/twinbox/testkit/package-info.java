/**
 * What Twinbox's tests need, against real servers and never mocks of them: a Kafka broker running
 * as its own process ({@link io.twinbox.testkit.KafkaBroker}), a fresh PostgreSQL database per test
 * class ({@link io.twinbox.testkit.PostgresDatabase}), loud skips for servers that are not running
 * ({@link io.twinbox.testkit.LocalServers}), and the delivery checker that turns a test's record of
 * committed and rolled-back events plus what reached the broker into lost / phantom / duplicate /
 * out-of-order counts ({@link io.twinbox.testkit.DeliveryChecker}, {@link
 * io.twinbox.testkit.KafkaDeliveryReader}), and a {@link io.twinbox.spi.MessageSource} of a fixed
 * list that drives core's public inbox consumer without a broker ({@link
 * io.twinbox.testkit.ListSource}).
 */
package io.twinbox.testkit;
