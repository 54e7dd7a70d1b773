// Command ferretdb runs FerretDB v1 (embedded) over PostgreSQL for the second-engine test run.
//
// FerretDB's own cmd/ferretdb, built with `go install`, panics at start because its
// build/version/version.txt is generated and absent from the module; the embeddable package
// does not read it. Telemetry is disabled by the embeddable package itself.
//
//	ferretdb -listen 127.0.0.1:27304 -postgresql-url postgres://user@127.0.0.1:5432/ferretdb
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL of the backend database")
	debug := flag.Bool("debug", false, "log at debug level")
	flag.Parse()

	if *pgURL == "" {
		fmt.Fprintln(os.Stderr, "[ferretdb] -postgresql-url is required")
		os.Exit(2)
	}

	// At warn level FerretDB dumps every error response in full, which floods the log.
	level := slog.LevelError
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Logger:        logger,
		Handler:       "postgresql",
		PostgreSQLURL: *pgURL,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "[ferretdb] %s\n", err)
		os.Exit(1)
	}

	// SIGTERM from scripts/stack.sh stop: close the listener and the PostgreSQL pool cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	// The listener is bound by Run; scripts/stack.sh waits for this line and the open port.
	fmt.Printf("[ferretdb] ready on %s\n", *listen)
	if err := f.Run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "[ferretdb] %s\n", err)
		os.Exit(1)
	}
}
