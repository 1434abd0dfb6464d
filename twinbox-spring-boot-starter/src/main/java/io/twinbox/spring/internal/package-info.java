/** Internals of the Spring Boot integration; not API. */
package io.twinbox.spring.internal;
