/**
 * The operator's HTTP server: {@link io.twinbox.admin.AdminServer} serves {@code /health},
 * {@code /metrics}, and the token-protected admin page and JSON API over an {@link
 * io.twinbox.spi.OutboxAdminStore}.
 */
package io.twinbox.admin;
