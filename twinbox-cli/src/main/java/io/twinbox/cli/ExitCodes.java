package io.twinbox.cli;

/** The exit codes of the {@code twinbox} command. */
public final class ExitCodes {
  private ExitCodes() {}

  /** Done; every requested check passed. */
  public static final int OK = 0;
  /** A check failed or something was found (e.g. {@code status --fail-if-pending-older-than}), or nothing matched. */
  public static final int CHECK_FAILED = 1;
  /** Bad usage or configuration: unknown option or setting, invalid value, missing schema. */
  public static final int USAGE = 2;
  /** The database cannot be reached or refuses the login. The relay waits out an unreachable broker. */
  public static final int UNREACHABLE = 3;

  static final String HELP = "%nExit codes:%n"
      + "  0  done; every requested check passed%n"
      + "  1  a check failed, something was found (--fail-if-...),%n"
      + "     or nothing matched the selector%n"
      + "  2  usage or configuration error (unknown option or setting,%n"
      + "     invalid value, schema missing)%n"
      + "  3  the database cannot be reached or refuses the login%n"
      + "     (the relay waits out an unreachable broker)%n";
}
