/** Spring Boot auto-configuration of Twinbox: wiring only, from {@code twinbox.*}. */
package io.twinbox.spring.autoconfigure;
