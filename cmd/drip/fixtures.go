package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
)

func newFixturesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixtures",
		Short: "The deterministic fixture server drip tests itself against",
	}
	var addr string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the fixture scenarios over HTTP, for drip or any other tool",
		Long: `Serve deterministic LLM streams. Pick a scenario with the request's model
name (or ?scenario=NAME); a model "NAME#tag" also logs the server's write
times. Every frame is flushed on its own. POST /fixtures/freeze?after=1s&for=2s
freezes every response, server-wide, for 2s starting 1s later.
?frame_delay=10ms on a request (or a Frame-Delay: 10ms header) spaces every
frame after the first content frame 10ms further apart: a slower
transport, time to first token untouched.`,
		Example: `  drip fixtures serve --addr 127.0.0.1:8089
  drip run http://127.0.0.1:8089 -m mid-sentence-stall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return cannotErr(err)
			}
			printFixtures(cmd.OutOrStdout(), "http://"+ln.Addr().String())
			srv := &http.Server{Handler: fixtures.NewFreezer(fixtures.NewServer()), ReadHeaderTimeout: 10 * time.Second}
			go func() {
				<-cmd.Context().Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				srv.Shutdown(ctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return cannotErr(err)
			}
			return nil
		},
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:8089", "address to listen on")
	cmd.AddCommand(serve)
	return cmd
}

func printFixtures(w io.Writer, base string) {
	fmt.Fprintf(w, "drip fixture server on %s\n\nendpoints:\n", base)
	for _, name := range adapters.Names() {
		if f := adapters.Lookup(name); f.Path != "" {
			fmt.Fprintf(w, "  %-22s %s%s\n", name, base, f.Path)
		}
	}
	fmt.Fprintf(w, "\nscenarios (the request's model name, or ?scenario=NAME):\n")
	for _, s := range fixtures.Scenarios() {
		fmt.Fprintf(w, "  %-20s %s\n", s.Name, s.Description)
	}
	fmt.Fprintf(w, "\ntry:  drip run %s -m %s\n", base, fixtures.DefaultScenario)
	fmt.Fprintf(w, "      curl -N %s%s -d '{\"model\":\"steady\"}'\n", base, adapters.Lookup("openai-chat").Path)
	fmt.Fprintln(w, strings.Repeat("─", 40))
}
