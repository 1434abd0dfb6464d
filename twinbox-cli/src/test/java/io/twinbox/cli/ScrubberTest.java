package io.twinbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.cli.internal.Scrubber;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The one place that decides what is secret: by form (URL user-info, secret-named pairs) and by
 * value (what the settings hold), and the second guard on stdout and stderr.
 */
class ScrubberTest {
  @Test
  void secretsPrintedByAnyoneAreMasked() {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Scrubber.install();
      Scrubber.addSecrets(Set.of("s3cret-value", "ab"));
      System.err.print("connecting with password s3cret-");
      System.err.println("value failed: ab");
      System.err.printf("again: %s%n", "s3cret-value");
      System.err.println("Unable to connect to NATS servers: [nats://formTok3n@127.0.0.1:1]");
      System.err.flush();
    } finally {
      System.setErr(original);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .isEqualTo("connecting with password **** failed: ab" + System.lineSeparator() + "again: ****"
            + System.lineSeparator() + "Unable to connect to NATS servers: [nats://****@127.0.0.1:1]"
            + System.lineSeparator());
  }

  @Test
  void everyUrlUserInfoIsSecret() {
    assertThat(Scrubber.maskText("nats://T0ken@h:4222")).isEqualTo("nats://****@h:4222");
    assertThat(Scrubber.maskText("nats://user:pw@h1:4222,nats://T0ken@h2:4222,h3:4222"))
        .isEqualTo("nats://****@h1:4222,nats://****@h2:4222,h3:4222");
    assertThat(Scrubber.maskText("amqp://relay:p%40ss@rabbit:5672/vh")).isEqualTo("amqp://****@rabbit:5672/vh");
    assertThat(Scrubber.maskText("connect to 'jdbc:mysql://root:pw@db:3306/x' failed"))
        .isEqualTo("connect to 'jdbc:mysql://****@db:3306/x' failed");
    assertThat(Scrubber.maskText("jdbc:postgresql://h:5432/db and https://example.com/a@b and me@example.com"))
        .as("no user-info: unchanged").isEqualTo("jdbc:postgresql://h:5432/db and https://example.com/a@b and me@example.com");
  }

  @Test
  void everySecretNamedParameterAndPropertyIsMasked() {
    assertThat(Scrubber.maskText("jdbc:postgresql://h/db?user=u&password=a1&sslpassword=b2&ssl=true"
        + "&trustStorePassword=c3;keyStorePassword=d4"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=****&sslpassword=****&ssl=true"
            + "&trustStorePassword=****;keyStorePassword=****");
    assertThat(Scrubber.maskText("PlainLoginModule required username=\"u\" password=\"x y\";"))
        .isEqualTo("PlainLoginModule required username=\"u\" password=\"****\";");
    assertThat(Scrubber.maskText("{\"token\": \"abc\", \"clientSecret\":\"def\", \"tokens\": 3}"))
        .isEqualTo("{\"token\": \"****\", \"clientSecret\":\"****\", \"tokens\": 3}");
    assertThat(Scrubber.maskText("ssl.keystore.key = -----BEGIN ssl.keystore.password = [hidden]"))
        .isEqualTo("ssl.keystore.key = **** ssl.keystore.password = [hidden]");
    String plain = "routingKey=OrderCreated key.serializer=org.x.Ser relay.name=twinbox no token: page off"
        + " outcome=\"published\" partitions=64";
    assertThat(Scrubber.maskText(plain)).as("nothing secret: unchanged").isEqualTo(plain);
  }

  @Test
  void secretNamesCoverPasswordsTokensCredentialsAndKeyMaterial() {
    for (String n : new String[] {"db.password", "sslpassword", "trustStorePassword", "ssl.key.password", "admin.token",
        "sasl.jaas.config", "sasl.oauthbearer.client.credentials.client.secret", "ssl.keystore.key", "sslkey",
        "ssl.truststore.certificates", "ssl.keystore.certificate.chain", "basic.auth.user.info", "http.tls.keystore.password",
        "aws.secret.access.key", "api-key", "PRIVATE_KEY", "pass"}) {
      assertThat(Scrubber.isSecretName(n)).as(n).isTrue();
    }
    for (String n : new String[] {"db.user", "db.url", "key.serializer", "routing.key", "ssl.keystore.location",
        "ssl.keystore.type", "relay.name", "partition", "bypass", "compass"}) {
      assertThat(Scrubber.isSecretName(n)).as(n).isFalse();
    }
  }

  @Test
  void theSecretsInsideAValueAreListedInEveryFormTheyMayBePrinted() {
    assertThat(Scrubber.secretsIn("nats.url", "nats://T0ken%2Fx@h:4222"))
        .contains("T0ken%2Fx", "T0ken/x").doesNotContain("h:4222");
    assertThat(Scrubber.secretsIn("rabbitmq.uri", "amqp://relay:pw9@h/vh")).contains("pw9").doesNotContain("relay");
    assertThat(Scrubber.secretsIn("db.url", "jdbc:postgresql://h/db?sslpassword=sp1&ssl=true")).contains("sp1")
        .doesNotContain("true");
    assertThat(Scrubber.secretsIn("kafka.property.ssl.keystore.key",
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEG\n-----END PRIVATE KEY-----"))
        .contains("MIGHAgEAMBMGByqGSM49AgEG", "-----BEGIN PRIVATE KEY-----");
    assertThat(Scrubber.secretsIn("admin.token", "quo\"te-token")).contains("quo\"te-token", "quo\\\"te-token");
    assertThat(Scrubber.secretsIn("relay.name", "twinbox")).isEmpty();
  }
}
