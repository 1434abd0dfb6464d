package io.twinbox.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.twinbox.InboxHandler;
import io.twinbox.UnprocessableMessageException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A seeded stream of messages as other producers may write them — good ones interleaved with
 * missing and overlong attributes, wrong types, NUL and invalid UTF-8, huge payloads, wrong content
 * types, non-CloudEvents, ids reused with other payloads, overlong keys — each with the outcome the
 * consumer must reach (issue 22, acceptance 2). Binding-independent like {@link WireCases}: a broker
 * module's fuzz test writes each message in its binding, runs its real consumer against a real
 * inbox with {@link #handler}, and calls {@link #check}.
 *
 * <p>Not thread-safe: one per test.
 */
public final class WireFuzz {
  /** What the consumer must make of a message. */
  public enum Outcome { APPLIED, PARKED, DUPLICATE }

  /** What the test's handler does with a message it is given. */
  public enum Behaviour { NORMAL, POISON, UNPROCESSABLE, FLAKY }

  /**
   * One message on the wire.
   *
   * @param attributes CloudEvents attributes ({@code datacontenttype} included), raw bytes
   * @param headers user headers, raw bytes
   * @param data the body
   * @param key a record key (Kafka), may be null
   * @param transportId a unique id for bindings that carry one of their own (AMQP message-id)
   * @param eventId the CloudEvents id when the message is readable, else null
   */
  public record Message(String kind, Map<String, byte[]> attributes, Map<String, byte[]> headers, byte[] data,
      String key, String transportId, String eventId, Outcome outcome, Behaviour behaviour) {}

  private final long seed;
  private final Random random;
  private final int maxAttempts;
  private final List<Message> messages = new ArrayList<>();
  private final Map<String, Behaviour> behaviours = new HashMap<>();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final List<Message> reusable = new ArrayList<>();
  private final Map<String, Long> sequences = new HashMap<>();

  /** {@code count} messages from {@code seed}, the last one good (the consumer kept consuming). */
  public WireFuzz(long seed, int count, int maxAttempts) {
    this.seed = seed;
    this.random = new Random(seed);
    this.maxAttempts = maxAttempts;
    for (int i = 0; i < count - 1; i++) {
      messages.add(next(i));
    }
    messages.add(good(count - 1, Behaviour.NORMAL, false));
  }

  public long seed() {
    return seed;
  }

  public List<Message> messages() {
    return messages;
  }

  public long expected(Outcome o) {
    return messages.stream().filter(m -> m.outcome() == o).count();
  }

  private Message next(int i) {
    int roll = random.nextInt(100);
    if (roll < 40) {
      return good(i, Behaviour.NORMAL, false);
    }
    if (roll < 46) {
      return good(i, Behaviour.POISON, random.nextBoolean());
    }
    if (roll < 50) {
      return good(i, Behaviour.UNPROCESSABLE, random.nextBoolean());
    }
    if (roll < 54) {
      return good(i, Behaviour.FLAKY, false);
    }
    if (roll < 60) {
      return good(i, Behaviour.NORMAL, true);
    }
    if (roll < 66 && !reusable.isEmpty()) {
      return reuse(i);
    }
    return bad(i);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private String text(int min, int max) {
    int n = min + random.nextInt(max - min + 1);
    StringBuilder b = new StringBuilder(n);
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_ éü€😀\"\\";
    while (b.length() < n) {
      int cp = alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0,
          alphabet.length()))));
      b.appendCodePoint(cp);
    }
    return b.toString();
  }

  private static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /**
   * A readable event; {@code weird}: legal but hostile — overlong attributes other than the id,
   * NUL in text attributes and headers, an escaped NUL or a huge JSON payload, no data at all.
   */
  private Message good(int i, Behaviour behaviour, boolean weird) {
    String id = "fz-" + i + "-" + Integer.toHexString(random.nextInt());
    String aggregate = "agg-" + random.nextInt(8);
    long sequence = sequences.merge(aggregate, 1L, Long::sum);
    Map<String, byte[]> a = new LinkedHashMap<>();
    a.put("specversion", utf8("1.0"));
    a.put("id", utf8(id));
    a.put("source", utf8("/fuzz"));
    a.put("type", utf8("Fuzzed"));
    a.put("subject", utf8(aggregate));
    a.put("sequence", utf8(Long.toString(sequence)));
    a.put("dataversion", utf8(Integer.toString(1 + random.nextInt(3))));
    if (random.nextBoolean()) {
      a.put("datacontenttype", utf8(random.nextBoolean() ? "application/json" : "application/json; charset=utf-8"));
    }
    if (random.nextBoolean()) {
      a.put("time", utf8("2026-12-01T10:15:" + (10 + random.nextInt(50)) + ".5Z"));
    }
    Map<String, byte[]> h = new LinkedHashMap<>();
    if (random.nextBoolean()) {
      h.put("tenant", utf8(text(1, 20)));
    }
    byte[] data = utf8("{\"n\":" + i + ",\"note\":" + json(text(0, 40)) + "}");
    String kind = "good";
    String key = aggregate;
    if (weird) {
      switch (random.nextInt(6)) {
        case 0 -> {
          kind = "overlong attributes";
          for (String name : List.of("type", "subject", "aggregatetype", "correlationid", "causationid")) {
            a.put(name, utf8("x".repeat(256 + random.nextInt(2_000))));
          }
          a.put("traceparent", utf8("00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01" + "z".repeat(
              15 + random.nextInt(100))));
        }
        case 1 -> {
          kind = "NUL in attributes and headers";
          a.put("type", utf8("Fuzz\u0000ed"));
          a.put("correlationid", utf8("c\u0000" + i));
          h.put("tenant", utf8("a\u0000b"));
        }
        case 2 -> {
          kind = "escaped NUL in JSON";
          data = utf8("{\"n\":" + i + ",\"nul\":\"\\u0000\"}");
        }
        case 3 -> {
          kind = "huge JSON payload";
          data = utf8("{\"n\":" + i + ",\"blob\":\"" + "b".repeat(200_000 + random.nextInt(300_000)) + "\"}");
        }
        case 4 -> {
          kind = "no data";
          data = new byte[0];
        }
        default -> {
          kind = "overlong key";
          key = "k".repeat(1_000 + random.nextInt(5_000));
        }
      }
    }
    behaviours.put(id, behaviour);
    Outcome outcome = behaviour == Behaviour.POISON || behaviour == Behaviour.UNPROCESSABLE ? Outcome.PARKED
        : Outcome.APPLIED;
    Message m = new Message(kind + (behaviour == Behaviour.NORMAL ? "" : ", handler " + behaviour), a, h, data, key,
        id, id, outcome, behaviour);
    if (behaviour == Behaviour.NORMAL && !weird) {
      reusable.add(m);
    }
    return m;
  }

  /** An earlier good message again: the same content (a duplicate) or other data (a conflict, parked). */
  private Message reuse(int i) {
    Message earlier = reusable.get(random.nextInt(reusable.size()));
    if (random.nextBoolean()) {
      return new Message("duplicate of " + earlier.eventId(), earlier.attributes(), earlier.headers(), earlier.data(),
          earlier.key(), "dup-" + i, earlier.eventId(), Outcome.DUPLICATE, Behaviour.NORMAL);
    }
    reusable.remove(earlier); // a second conflict on the same id could be this one's duplicate
    byte[] other = utf8("{\"n\":" + i + ",\"reused\":true}");
    return new Message("id " + earlier.eventId() + " reused with other data", earlier.attributes(),
        earlier.headers(), other, earlier.key(), "reuse-" + i, null, Outcome.PARKED, Behaviour.NORMAL);
  }

  /** Something no consumer may apply: it must be parked. */
  private Message bad(int i) {
    Message base = good(i, Behaviour.NORMAL, false);
    behaviours.remove(base.eventId());
    reusable.remove(base);
    Map<String, byte[]> a = new LinkedHashMap<>(base.attributes());
    Map<String, byte[]> h = new LinkedHashMap<>(base.headers());
    byte[] data = base.data();
    String key = base.key();
    String kind;
    String junk = "v" + text(0, 12).replaceAll("[0-9]", "");
    switch (random.nextInt(14)) {
      case 0 -> {
        String name = List.of("specversion", "id", "source", "type").get(random.nextInt(4));
        kind = "no " + name;
        a.remove(name);
      }
      case 1 -> {
        kind = "overlong id";
        a.put("id", utf8("i".repeat(256 + random.nextInt(1_000))));
      }
      case 2 -> {
        kind = "control character in the id";
        a.put("id", utf8("fz-" + i + (random.nextBoolean() ? "\u0000" : "\n")));
      }
      case 3 -> {
        kind = "specversion " + junk;
        a.put("specversion", utf8(junk));
      }
      case 4 -> {
        kind = "dataversion " + junk;
        a.put("dataversion", utf8(junk));
      }
      case 5 -> {
        kind = "sequence " + junk;
        a.put("sequence", utf8(junk));
      }
      case 6 -> {
        kind = "time " + junk;
        a.put("time", utf8(junk));
      }
      case 7 -> {
        String type = List.of("text/plain", "application/xml", "application/octet-stream", "image/png")
            .get(random.nextInt(4));
        kind = "datacontenttype " + type;
        a.put("datacontenttype", utf8(type));
      }
      case 8 -> {
        kind = "invalid UTF-8 in the data";
        data = new byte[] {'"', 'x', (byte) (0x80 + random.nextInt(0x40)), '"'};
      }
      case 9 -> {
        kind = "NUL byte in the data";
        data = new byte[] {'{', '"', 'n', '"', ':', '1', 0, '}'};
      }
      case 10 -> {
        kind = "data that is not JSON";
        data = utf8("not json " + i + " " + text(0, 20));
      }
      case 11 -> {
        kind = "huge data that is not JSON";
        data = utf8("x".repeat(200_000 + random.nextInt(300_000)) + i);
      }
      case 12 -> {
        kind = "invalid UTF-8 in " + (random.nextBoolean() ? "an attribute" : "a header");
        byte[] broken = {'a', (byte) 0xc3, 'b'};
        if (kind.endsWith("attribute")) {
          a.put("type", broken);
        } else {
          h.put("tenant", broken);
        }
      }
      default -> {
        kind = "not a CloudEvent";
        a.clear();
        h.clear();
        data = new byte[1 + random.nextInt(64)];
        random.nextBytes(data);
        data[0] = (byte) i; // distinct bodies: an AMQP message without id is known by its body's hash
        key = random.nextBoolean() ? null : "k".repeat(random.nextInt(3_000));
      }
    }
    return new Message(kind, a, h, data, key, "bad-" + i, null, Outcome.PARKED, Behaviour.NORMAL);
  }

  /** Creates the table the handler writes its effects to. */
  public static void createLedger(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS fuzz_ledger (consumer varchar(255) NOT NULL,"
          + " message_id varchar(255) NOT NULL, PRIMARY KEY (consumer, message_id))");
    }
  }

  /**
   * The handler: records the effect (once per id, by key), fails as each message's behaviour says,
   * and counts its runs per message id.
   */
  public InboxHandler handler(String consumer) {
    return (c, m) -> {
      int run = runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
      switch (behaviours.getOrDefault(m.id(), Behaviour.NORMAL)) {
        case POISON -> throw new IllegalStateException("poison " + m.id());
        case UNPROCESSABLE -> throw new UnprocessableMessageException("unknown contract");
        case FLAKY -> {
          if (run == 1) {
            throw new IllegalStateException("flaky, first run");
          }
        }
        case NORMAL -> {
          // applies
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO fuzz_ledger (consumer, message_id) VALUES (?, ?)")) {
        ps.setString(1, consumer);
        ps.setString(2, m.id());
        ps.executeUpdate();
      }
    };
  }

  /** True once every message has come to an end in the inbox of {@code consumer}. */
  public boolean settled(DataSource ds, String consumer) throws SQLException {
    return count(ds, "SELECT count(*) FROM fuzz_ledger WHERE consumer = ?", consumer) >= expected(Outcome.APPLIED)
        && count(ds, "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = ?", consumer)
            >= expected(Outcome.PARKED);
  }

  /**
   * Every message ended where it must: the good ones applied (none lost, none twice), the bad ones
   * parked (one row each), no handler ran more than {@code maxAttempts} times for a message, and
   * the poison ones exactly that often.
   */
  public void check(DataSource ds, String consumer) throws SQLException {
    Set<String> applied = new HashSet<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT message_id FROM fuzz_ledger WHERE consumer = ?")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          applied.add(rs.getString(1));
        }
      }
    }
    Set<String> mustApply = new HashSet<>();
    for (Message m : messages) {
      if (m.outcome() == Outcome.APPLIED) {
        mustApply.add(m.eventId());
      }
    }
    String seedNote = "fuzz seed " + seed + " (rerun with -Dtwinbox.fuzz.seed=" + seed + ")";
    assertThat(applied).as("applied: every good message, nothing else; " + seedNote).isEqualTo(mustApply);
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox_parked WHERE consumer = ?", consumer))
        .as("one parked row per bad message; " + seedNote).isEqualTo(expected(Outcome.PARKED));
    assertThat(count(ds, "SELECT count(*) FROM twinbox_inbox_attempt WHERE consumer = ?", consumer))
        .as("no attempt counter left; " + seedNote).isZero();
    for (Map.Entry<String, AtomicInteger> r : runs.entrySet()) {
      assertThat(r.getValue().get()).as("handler runs of %s; %s", r.getKey(), seedNote).isLessThanOrEqualTo(maxAttempts);
    }
    for (Message m : messages) {
      if (m.behaviour() == Behaviour.POISON) {
        assertThat(runs.get(m.eventId())).as("runs of poison %s; %s", m.eventId(), seedNote).hasValue(maxAttempts);
      } else if (m.behaviour() == Behaviour.UNPROCESSABLE) {
        assertThat(runs.get(m.eventId())).as("runs of unprocessable %s; %s", m.eventId(), seedNote).hasValue(1);
      }
    }
  }

  /** A count of kinds, for the test's log. */
  public Map<String, Long> summary() {
    Map<String, Long> kinds = new java.util.TreeMap<>();
    for (Message m : messages) {
      kinds.merge(m.kind().replaceAll("fz-[0-9a-f-]+", "…").replaceAll(" v\\S*", " <junk>"), 1L, Long::sum);
    }
    return kinds;
  }

  private static long count(DataSource ds, String sql, String arg) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The seed: {@code -Dtwinbox.fuzz.seed} to replay a run, else a fresh one. Print it. */
  public static long seedFromProperty() {
    return Long.getLong("twinbox.fuzz.seed", System.nanoTime());
  }
}
