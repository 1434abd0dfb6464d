/** Not API: the request handler, token checks, JSON shapes and audit lines of the admin server. */
package io.twinbox.admin.internal;
