package io.twinbox.admin.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.util.Collections;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/** The admin server's TLS: a key store (PKCS12 or JKS) opened once at build time, checked early. */
public final class Tls {
  private Tls() {}

  /**
   * Opens the key store and checks that it holds a private key.
   *
   * @throws IllegalArgumentException naming {@code field} (never the password) when the file is
   *     missing or unreadable, the password is wrong, or it holds no key
   */
  public static KeyStore open(String field, Path path, char[] password) {
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new IllegalArgumentException(field + " " + path + " does not exist or cannot be read");
    }
    KeyStore ks;
    try {
      ks = KeyStore.getInstance(path.toFile(), password); // detects PKCS12 or JKS
    } catch (IOException e) {
      boolean wrongPassword = e.getCause() instanceof UnrecoverableKeyException;
      throw new IllegalArgumentException(field + " " + path + (wrongPassword
          ? " cannot be opened with the configured password"
          : " is not a readable PKCS12 or JKS key store (" + e.getClass().getSimpleName() + ")"));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(field + " " + path + " is not a PKCS12 or JKS key store ("
          + e.getClass().getSimpleName() + ")");
    }
    try {
      for (String alias : Collections.list(ks.aliases())) {
        if (ks.isKeyEntry(alias)) {
          return ks;
        }
      }
    } catch (GeneralSecurityException e) {
      // reported below
    }
    throw new IllegalArgumentException(field + " " + path + " holds no private key (the server's certificate and key)");
  }

  /** Jetty's server-side TLS over an opened key store; the key's password is the store's. */
  public static SslContextFactory.Server factory(KeyStore keyStore, char[] password) {
    SslContextFactory.Server f = new SslContextFactory.Server();
    f.setKeyStore(keyStore);
    f.setKeyStorePassword(new String(password));
    // Hostname checks are the client's job; a certificate for the DNS name must still serve a
    // probe that connects by IP address (no SNI).
    f.setSniRequired(false);
    return f;
  }
}
