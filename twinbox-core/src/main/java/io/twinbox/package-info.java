/**
 * Twinbox's public API: write events with {@link io.twinbox.Outbox} in your own transaction,
 * publish them with a {@link io.twinbox.Relay}, and apply received messages at most once with an
 * {@link io.twinbox.Inbox}. Builders check their settings against the catalogues ({@link
 * io.twinbox.RelaySettings}, {@link io.twinbox.InboxSettings} …); failures are {@link
 * io.twinbox.TwinboxException}s. Everything here is stable API; the stores and transports plug in
 * through {@link io.twinbox.spi}.
 */
package io.twinbox;
