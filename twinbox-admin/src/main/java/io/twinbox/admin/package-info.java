/**
 * The operator's HTTP server: {@link io.twinbox.admin.AdminServer} serves {@code /health},
 * {@code /metrics}, and the token-protected admin page and JSON API over a {@link
 * io.twinbox.TwinboxAdmin}, core's operator facade.
 */
package io.twinbox.admin;
