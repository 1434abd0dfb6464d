/**
 * Core's engine — the relay loop, lease keeping, wave publishing, the inbox and its consumer
 * runner, the WAL stream — and its helpers. Not API: nothing outside {@code twinbox-core} may import
 * this package (other modules use {@link io.twinbox} and {@link io.twinbox.spi}); its types change
 * without notice.
 */
package io.twinbox.internal;
