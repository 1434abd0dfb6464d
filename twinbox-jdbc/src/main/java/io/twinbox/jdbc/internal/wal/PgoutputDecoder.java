package io.twinbox.jdbc.internal.wal;

import io.twinbox.spi.Change;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes the messages of PostgreSQL's built-in {@code pgoutput} plugin, protocol version 1 (no
 * streaming of in-progress transactions: the server sends a transaction only once it committed, in
 * commit order). Begin, Relation, Insert and Commit matter; Origin and Type messages carry nothing
 * the relay needs; Update, Delete and Truncate cannot arrive from a publication that publishes only
 * inserts and are skipped. Integers are big-endian, strings NUL-terminated UTF-8 (the replication
 * connection's client encoding), column values text.
 *
 * <p>Inserts of a relation other than {@code <schema>.twinbox_outbox} are skipped: the publication
 * is checked at start, so they mean it was altered since.
 *
 * <p>Not thread-safe: the feed's reader thread owns it.
 */
final class PgoutputDecoder {
  private static final Logger log = LoggerFactory.getLogger(PgoutputDecoder.class);

  private final String schema;
  private final OutboxRowDecoder rows;
  private int outboxRelation = -1;
  private boolean inTransaction;
  private long lastCommitEnd = -1;
  private boolean warnedForeign;

  PgoutputDecoder(String schema, OutboxRowDecoder rows) {
    this.schema = schema;
    this.rows = rows;
  }

  /** True between a Commit and the next Begin (or before the first). */
  boolean betweenTransactions() {
    return !inTransaction;
  }

  /** End position of the last commit decoded, or -1. */
  long lastCommitEnd() {
    return lastCommitEnd;
  }

  /** Decodes one message, adding 0 or 1 change to {@code out}. */
  void decode(ByteBuffer buf, List<Change> out) {
    char type = (char) buf.get();
    switch (type) {
      case 'B' -> {
        buf.getLong(); // final LSN of the transaction: the Commit message brings the end position
        buf.getLong(); // commit timestamp: taken from the Commit message
        long xid = buf.getInt() & 0xffffffffL;
        inTransaction = true;
        out.add(new Change.Begin(xid));
      }
      case 'C' -> {
        buf.get(); // flags, unused
        buf.getLong(); // commit LSN (start of the commit record)
        long end = buf.getLong();
        long commitMicros = buf.getLong();
        inTransaction = false;
        lastCommitEnd = end;
        out.add(new Change.Commit(end, PgTimestamps.fromPgMicros(commitMicros)));
      }
      case 'R' -> relation(buf);
      case 'I' -> {
        int relation = buf.getInt();
        byte kind = buf.get(); // 'N': a new tuple
        if (kind != 'N') {
          throw new IllegalStateException("unexpected tuple kind '" + (char) kind + "' in an Insert message");
        }
        List<String> values = tuple(buf);
        if (relation != outboxRelation) {
          if (!warnedForeign) {
            warnedForeign = true;
            log.warn("the publication streams inserts of a table other than {}.twinbox_outbox; they are skipped",
                schema);
          }
          return;
        }
        Change c = rows.decode(values);
        if (c != null) {
          out.add(c);
        }
      }
      case 'O', 'Y', 'U', 'D', 'T', 'M' -> {
        // Nothing for the relay: origins, type definitions, and changes the publication does not send.
      }
      default -> throw new IllegalStateException("unknown pgoutput message type '" + type + "'");
    }
  }

  private void relation(ByteBuffer buf) {
    int id = buf.getInt();
    String namespace = string(buf);
    String name = string(buf);
    buf.get(); // replica identity
    int n = buf.getShort();
    List<String> columns = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      buf.get(); // flags
      columns.add(string(buf));
      buf.getInt(); // type OID
      buf.getInt(); // type modifier
    }
    if (name.equals("twinbox_outbox") && namespace.equals(schema)) {
      rows.columns(columns);
      outboxRelation = id;
    }
  }

  private static List<String> tuple(ByteBuffer buf) {
    int n = buf.getShort();
    List<String> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      char kind = (char) buf.get();
      switch (kind) {
        case 'n', 'u' -> values.add(null); // NULL; 'u' (unchanged TOAST) only occurs in updates
        case 't' -> {
          int len = buf.getInt();
          values.add(new String(buf.array(), buf.arrayOffset() + buf.position(), len, StandardCharsets.UTF_8));
          buf.position(buf.position() + len);
        }
        default -> throw new IllegalStateException("unexpected column kind '" + kind + "' (binary mode is off)");
      }
    }
    return values;
  }

  private static String string(ByteBuffer buf) {
    int start = buf.position();
    int end = start;
    while (buf.get(end) != 0) {
      end++;
    }
    String s = new String(buf.array(), buf.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
    buf.position(end + 1);
    return s;
  }
}
