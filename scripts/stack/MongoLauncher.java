// Starts mongo-java-server on 127.0.0.1 for the local stack (scripts/stack.sh).
//
//   java -cp '.stack/mongo-java-server/lib/*' scripts/stack/MongoLauncher.java <memory|h2> <port> [h2-file]
//
// The library's own main classes always bind localhost:27017; this launcher exists to choose the
// port, to bind loopback only, to print a line the start script waits for, to close the backend
// on SIGTERM so that an H2 file is complete when the process exits, and to make the H2 backend
// durable: every command's changes are committed to the file (and synced) before its reply leaves,
// so an acknowledged write survives the process being killed (docs/scale.md).

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import org.h2.mvstore.MVStore;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

public class MongoLauncher {

    static final String HOST = "127.0.0.1";

    public static void main(String[] args) throws Exception {
        // Before the first logger exists: slf4j-simple reads these once. The wire handler logs
        // every connection at INFO, which a driver's pool turns into noise; -D on the command line
        // still wins.
        defaultProperty("org.slf4j.simpleLogger.log.de.bwaldvogel.mongo.wire.MongoWireProtocolHandler", "warn");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");

        if (args.length < 2 || args.length > 3) {
            usage("expected 2 or 3 arguments");
        }
        String kind = args[0];
        int port = parsePort(args[1]);

        MongoBackend backend;
        String description;
        switch (kind) {
            case "memory" -> {
                backend = new MemoryBackend();
                description = "memory backend";
            }
            case "h2" -> {
                if (args.length != 3) {
                    usage("the h2 backend needs a data file");
                }
                Path file = Path.of(args[2]).toAbsolutePath();
                Files.createDirectories(file.getParent());
                // A second process on the same file would fail inside H2 with a lock error that
                // hides the real cause; the start script prevents it, this message explains it.
                backend = openH2(file);
                description = "h2 backend, file " + file;
            }
            default -> {
                usage("unknown backend '" + kind + "'");
                return;
            }
        }

        MongoServer server = new MongoServer(backend);
        try {
            server.bind(HOST, port);
        } catch (RuntimeException e) {
            backend.close();
            System.err.println("[mongo] cannot bind " + HOST + ":" + port + ": " + rootMessage(e));
            System.exit(1);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("[mongo] stopping");
            try {
                // shutdownNow drops client connections first; otherwise an idle driver pool keeps
                // the event loops busy until Netty's timeout. It then closes the backend, which for
                // H2 commits and closes the MVStore file.
                server.shutdownNow();
            } catch (RuntimeException e) {
                System.err.println("[mongo] error during shutdown: " + rootMessage(e));
            }
            System.out.println("[mongo] stopped");
            System.out.flush();
            stopped.countDown();
        }, "mongo-shutdown"));

        System.out.println("[mongo] ready on " + HOST + ":" + port + " (" + description + ")");
        System.out.flush();
        stopped.await();
    }

    /**
     * The H2 backend, with each command's changes on disk before its reply is sent. The library's
     * backend leaves them to MVStore's background writer, which commits about once a second: a
     * SIGKILL (OOM killer, power cut) lost the last ~0.8 s of acknowledged writes. Every command,
     * the library's handleMessage included, goes through handleCommand; a read commits nothing.
     */
    static final class DurableH2Backend extends H2Backend {
        /**
         * How long a chunk freed by a commit stays untouched (MVStore's default, 45 s, assumes the
         * OS flushes within that time). A commit per write makes a chunk per write, so 45 s of them
         * grew the file to 62 MB over 2,300 inserts; every commit is synced here, so a short
         * retention keeps the file small without reusing space that is not yet on disk.
         */
        static final int RETENTION_MS = 2000;
        /**
         * fsync after each commit, so an acknowledged write survives a power cut too; a commit
         * alone (the write in the OS's page cache) survives the process being killed.
         * -Dmongo.h2.sync=false (STACK_MONGO_JAVA_OPTS) leaves the flush to the OS, as MVStore
         * does (docs/scale.md).
         */
        static final boolean SYNC = !"false".equals(System.getProperty("mongo.h2.sync"));
        /** Housekeeping: rewrite chunks below this fill rate, this much at a time, this often. */
        static final int COMPACT_FILL_RATE = 80;
        static final int COMPACT_WRITE_BYTES = 4 << 20;
        static final long HOUSEKEEPING_EVERY_MS = 2000;
        /**
         * On close (SIGTERM) the store is compacted fully (-1: rewritten into a fresh file): a chunk
         * per write leaves the file several times its data (21.8 MB shrank to 0.3 MB).
         */
        static final int CLOSE_COMPACT_MS = -1;

        private final MVStore store;
        /** The newest store version known to be synced; fsync only when a commit made a newer one. */
        private long synced;

        DurableH2Backend(String file) {
            super(file);
            store = getMvStore();
            // No background writer: its commits serialize and write on executor threads, so a
            // command's commit() could find its changes already taken by a write still in flight
            // and return before they reach the file. Without it, every store runs in the thread
            // that holds MVStore's store lock, and commit() waits for that lock.
            store.setAutoCommitDelay(0);
            if (SYNC) {
                // Without the fsync, MVStore's own retention (45 s for the OS to flush) stays.
                store.setRetentionTime(RETENTION_MS);
            }
            synced = store.getCurrentVersion();
            Thread housekeeping = new Thread(this::housekeeping, "h2-housekeeping");
            housekeeping.setDaemon(true);
            housekeeping.start();
        }

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            try {
                return super.handleCommand(channel, database, command, query);
            } finally {
                persist();
            }
        }

        /** Writes what is not yet in the file (returns at once when nothing changed), then fsyncs. */
        private void persist() {
            if (!store.isClosed()) {
                store.commit();
                sync();
            }
        }

        /** fsync when a commit made a version not yet synced. */
        private synchronized void sync() {
            if (!SYNC) {
                return;
            }
            long version = store.getCurrentVersion();
            if (version > synced && !store.isClosed()) {
                store.sync();
                synced = version;
            }
        }

        /** What the background writer did besides committing: rewrite sparse chunks. */
        private void housekeeping() {
            while (!store.isClosed()) {
                try {
                    Thread.sleep(HOUSEKEEPING_EVERY_MS);
                    if (store.compact(COMPACT_FILL_RATE, COMPACT_WRITE_BYTES)) {
                        persist();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // The store closing under us (shutdown) ends the loop at its next turn.
                }
            }
        }

        @Override
        public void close() {
            store.close(CLOSE_COMPACT_MS);
            super.close();
        }
    }

    static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    static MongoBackend openH2(Path file) {
        try {
            return new DurableH2Backend(file.toString());
        } catch (RuntimeException e) {
            System.err.println("[mongo] cannot open H2 file " + file + ": " + rootMessage(e)
                + " (is another server using it?)");
            System.exit(1);
            return null;
        }
    }

    static int parsePort(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port > 0 && port < 65536) {
                return port;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        usage("invalid port '" + value + "'");
        return -1;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    static void usage(String problem) {
        System.err.println("[mongo] " + problem);
        System.err.println("usage: java -cp '<lib>/*' MongoLauncher.java <memory|h2> <port> [h2-file]");
        System.exit(2);
    }
}
