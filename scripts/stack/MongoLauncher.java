// Starts mongo-java-server on 127.0.0.1 for the local stack (scripts/stack.sh).
//
//   java -cp '.stack/mongo-java-server/lib/*' scripts/stack/MongoLauncher.java <memory|h2> <port> [h2-file]
//
// The library's own main classes always bind localhost:27017; this launcher exists to choose the
// port, to bind loopback only, to print a line the start script waits for, and to close the
// backend on SIGTERM so that an H2 file is complete when the process exits.

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

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

    static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    static MongoBackend openH2(Path file) {
        try {
            return new H2Backend(file.toString());
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
