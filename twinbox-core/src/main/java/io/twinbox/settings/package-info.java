/**
 * The settings catalogue: each Twinbox component declares its settings once — name, type, default,
 * limits, secret flag, description — as {@link io.twinbox.settings.Setting}s in a {@link
 * io.twinbox.settings.Catalogue} (e.g. {@code RelaySettings.CATALOGUE}). Its builder validates
 * with them, and everything else derives from them: the Spring Boot starter's {@code twinbox.*}
 * properties and IDE metadata, the CLI's keys, and the README's configuration tables. A test
 * compares every surface with the catalogue.
 *
 * <p>To add a setting: declare it in the component's catalogue with the builder method that takes
 * it; the surfaces that expose the catalogue then offer it, and the README's table is regenerated
 * by the agreement tests ({@code -Dtwinbox.readme.write=true}).
 */
package io.twinbox.settings;
