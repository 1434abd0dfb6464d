package io.twinbox.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed server certificate for 127.0.0.1 and localhost in a PKCS12 key store, made with
 * the JDK's own {@code keytool} (no library, nothing downloaded), and a client context trusting it:
 * for tests of a TLS server. Stateless and thread-safe.
 */
public final class SelfSignedKeyStore {
  private SelfSignedKeyStore() {}

  /** Writes a new key store into {@code dir}; its store and key password is {@code password}. */
  public static Path create(Path dir, String password) throws IOException, InterruptedException {
    Path ks = dir.resolve("server-" + System.nanoTime() + ".p12");
    Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "twinbox", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
        "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
        "-keystore", ks.toString(), "-storepass", password, "-keypass", password))
        .redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + new String(out));
    }
    return ks;
  }

  /** A client TLS context that trusts exactly the certificate in {@code ks}. */
  public static SSLContext trusting(Path ks, String password) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(ks)) {
      store.load(in, password.toCharArray());
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
