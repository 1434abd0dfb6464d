/** Testkit internals; not part of the API and free to change. */
package io.twinbox.testkit.internal;
