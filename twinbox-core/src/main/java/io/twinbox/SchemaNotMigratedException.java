package io.twinbox;

/**
 * The Twinbox tables are missing or older than this library expects. Run the migration
 * ({@code store.migrate()}, {@code twinbox migrate}, or the SQL files under
 * {@code db/<dialect>/} with Flyway or Liquibase).
 */
public final class SchemaNotMigratedException extends TwinboxException {
  private static final long serialVersionUID = 1L;

  public SchemaNotMigratedException(String detail, Throwable cause) {
    super("the Twinbox schema is not migrated (" + detail + "); run store.migrate() or apply"
        + " the scripts under db/<dialect>/ first", cause);
  }
}
