/**
 * The service-provider interfaces a store or a transport implements: {@link
 * io.twinbox.spi.OutboxStore} (write, claim, complete, leases), {@link io.twinbox.spi.InboxStore}
 * (records, parking, attempts), {@link io.twinbox.spi.OutboxAdminStore} (the operator's view),
 * {@link io.twinbox.spi.ChangeFeedStore} (the WAL relay's change feed) and {@link
 * io.twinbox.spi.Transport} (publish to a broker). The types here are the contract between core and
 * the modules {@code twinbox-jdbc}, {@code twinbox-kafka}, {@code twinbox-rabbitmq} and {@code
 * twinbox-nats}; they change only with a note in the README.
 */
package io.twinbox.spi;
