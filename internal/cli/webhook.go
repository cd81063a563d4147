package cli

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/atomicwrite"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/webhook"
)

func newWebhookCommand(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Enforce the rules at admission: a validating and mutating webhook server",
		Long: `Run winkube's rules as a Kubernetes admission webhook. /mutate adds what a
Windows pod needs to be placed (the kubernetes.io/os selector, spec.os.name,
the Windows toleration, the build pin) and the other safe fixes as a JSON
patch; /validate denies what the API server or the Windows node would reject,
in the API server's wording, and returns the rest as warnings kubectl prints.`,
	}
	cmd.AddCommand(newWebhookServeCommand(s), newWebhookCertsCommand(s))
	return cmd
}

type webhookServeOptions struct {
	output
	opts     webhook.Options
	logLevel string
	streams  Streams
}

func newWebhookServeCommand(s Streams) *cobra.Command {
	o := &webhookServeOptions{streams: s, output: output{streaming: true}}
	cmd := &cobra.Command{
		Use:         "serve --tls-cert FILE --tls-key FILE [--config FILE]",
		Annotations: map[string]string{gracefulStop: "true"},
		Short:       "Serve /validate, /mutate, /healthz, /readyz and /metrics over HTTPS",
		Long: `Serve the admission webhook over HTTPS until SIGTERM or SIGINT, then drain: /readyz
fails and responses close their connections for --drain-delay, after which the
server stops accepting connections and answers every request in flight.

The config (apiVersion winkube.io/v1alpha1, kind WebhookConfig) and the TLS
certificate and key are reloaded when their files change; a bad new version is
logged and the previous one kept. Without --config: enforce mode, every
namespace but kube-system, every rule, the built-in reference cluster.

Modes: enforce fixes on /mutate and denies error findings on /validate; mutate
fixes and only warns; warn changes nothing and returns every finding, errors
included, as a warning. Logs go to stderr as JSON lines (-o json) or
key=value text (-o text); -q logs warnings and errors only (unless
--log-level says otherwise). Logs are never coloured. Garbage collection runs
at GOGC=400 unless GOGC is set.`,
		Example: `  winkube webhook certs --service winkube-webhook --namespace winkube-system --out-dir certs
  winkube webhook serve --tls-cert certs/tls.crt --tls-key certs/tls.key --config webhook.yaml
  curl --cacert certs/ca.crt https://winkube-webhook.winkube-system.svc:8443/metrics`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(cmd.Flags().Changed("log-level")); err != nil {
				return err
			}
			if os.Getenv("GOGC") == "" {
				// The heap is small and short-lived: collecting at 5x the
				// live heap rather than 2x costs tens of MB and saves about
				// 15% of the CPU under load. GOGC in the environment wins.
				debug.SetGCPercent(400)
			}
			if n := webhook.SetMemoryLimit(); n > 0 {
				fmt.Fprintf(o.streams.Err, "winkube webhook: GOMEMLIMIT unset; memory limit set to %d MiB, 80%% of the container's\n", n>>20)
			}
			o.opts.Known = knownRules()
			srv, err := webhook.New(o.opts)
			if err != nil {
				return err
			}
			stop := reloadOnHangup(srv)
			defer stop()
			return srv.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.Addr, "addr", ":8443", "address to listen on")
	f.StringVar(&o.opts.CertFile, "tls-cert", "", "TLS serving certificate (PEM), reloaded when the file changes")
	f.StringVar(&o.opts.KeyFile, "tls-key", "", "TLS private key (PEM), reloaded when the file changes")
	f.StringVar(&o.opts.ConfigPath, "config", "", "WebhookConfig file, reloaded when it changes (default: built-in defaults)")
	f.Int64Var(&o.opts.MaxRequestBytes, "max-request-bytes", webhook.DefaultMaxRequestBytes, "largest request body accepted")
	f.DurationVar(&o.opts.ReadTimeout, "read-timeout", webhook.DefaultReadTimeout, "time allowed to read a request")
	f.DurationVar(&o.opts.WriteTimeout, "write-timeout", webhook.DefaultWriteTimeout, "time allowed to handle a request and write its response")
	f.DurationVar(&o.opts.DrainDelay, "drain-delay", 5*time.Second, "after SIGTERM, keep serving this long (readiness failing) before closing the listener; 0 for none")
	// 5s of drain and 20s of shutdown stay under the kubelet's default 30s grace period.
	f.DurationVar(&o.opts.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "after the drain, how long requests in flight may take")
	f.DurationVar(&o.opts.ReloadInterval, "reload-interval", webhook.DefaultReloadInterval, "how often the config and certificate files are checked for changes")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug (every request), info, warn or error")
	o.output.addFlags(f, "log", "json", "text")
	return cmd
}

// reloadOnHangup reloads the server's config and certificate on SIGHUP,
// the usual reload signal; without this SIGHUP would end the process
// without draining.
func reloadOnHangup(srv *webhook.Server) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				srv.Reload() // logs its outcome; the previous version stays on failure
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

func (o *webhookServeOptions) validate(levelSet bool) error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if o.quiet && !levelSet {
		o.logLevel = "warn"
	}
	if o.opts.CertFile == "" || o.opts.KeyFile == "" {
		return usagef("--tls-cert and --tls-key are required: the API server calls webhooks over HTTPS only (winkube webhook certs makes a pair)")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usagef("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	if o.opts.DrainDelay == 0 {
		o.opts.DrainDelay = -1 // the flag's 0 means none; the library's means its default
	}
	handler := slog.Handler(slog.NewJSONHandler(o.streams.Err, &slog.HandlerOptions{Level: level}))
	if o.format == "text" {
		handler = slog.NewTextHandler(o.streams.Err, &slog.HandlerOptions{Level: level})
	}
	o.opts.Logger = slog.New(handler)
	return nil
}

type webhookCertsOptions struct {
	output
	service, namespace, outDir string
	validFor                   time.Duration
	sans                       []string
	caBundle, force            bool
	streams                    Streams
}

func newWebhookCertsCommand(s Streams) *cobra.Command {
	o := &webhookCertsOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "certs --service NAME --namespace NS [--out-dir DIR]",
		Short: "Generate a CA and a serving certificate for the webhook's Service",
		Long: `Generate a self-signed CA and a serving certificate for NAME.NS.svc (and NAME,
NAME.NS, NAME.NS.svc.cluster.local, and any --san), for tests and first
installs. Writes ca.crt, tls.crt and tls.key (mode 0600) to --out-dir; the
webhook configurations' caBundle is ca.crt in base64, which --ca-bundle prints
on stdout (-o text), and -o json prints with the paths of the files.

An existing ca.crt, tls.crt or tls.key is left alone and the command fails:
a new CA no longer verifies the certificate already in the Secret, nor the
Secret's new certificate against the caBundle already installed. --force
replaces them (read the caBundle from the new ca.crt afterwards). In
production, prefer cert-manager: serve reloads rotated files.`,
		Example: `  winkube webhook certs --service winkube-webhook --namespace winkube-system --out-dir certs
  kubectl -n winkube-system create secret tls winkube-webhook-tls --cert certs/tls.crt --key certs/tls.key
  CA=$(base64 -w0 < certs/ca.crt)`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if err := o.output.validate(); err != nil {
				return err
			}
			if o.service == "" || o.namespace == "" {
				return usagef("--service and --namespace are required")
			}
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.service, "service", "", "name of the webhook's Service")
	f.StringVarP(&o.namespace, "namespace", "n", "", "namespace of the webhook's Service")
	f.StringVar(&o.outDir, "out-dir", ".", "folder to write ca.crt, tls.crt and tls.key to")
	f.DurationVar(&o.validFor, "valid-for", webhook.DefaultCertValidity, "validity of the certificates")
	f.StringArrayVar(&o.sans, "san", nil, "extra DNS name or IP address for the serving certificate (repeatable)")
	f.BoolVar(&o.caBundle, "ca-bundle", false, "print the caBundle (ca.crt in base64) on stdout")
	f.BoolVar(&o.force, "force", false, "replace an existing ca.crt, tls.crt and tls.key (the installed caBundle stops verifying)")
	o.output.addFlags(f, "result", "text", "json")
	return cmd
}

func (o *webhookCertsOptions) run() error {
	ca, cert, key, err := webhook.GenerateCerts(o.service, o.namespace, o.validFor, o.sans...)
	if err != nil {
		return usageError{err}
	}
	names := []string{"ca.crt", "tls.crt", "tls.key"}
	if !o.force {
		for _, name := range names {
			path := filepath.Join(o.outDir, name)
			if _, err := os.Lstat(path); err == nil {
				return usagef("%s already exists: a new CA stops the installed caBundle from verifying the webhook; keep it, or pass --force to replace ca.crt, tls.crt and tls.key", path)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("checking %s: %w", path, err)
			}
		}
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return err
	}
	for i, data := range [][]byte{ca, cert, key} {
		// The final mode is set on the temporary file before the key is
		// written; a link planted at the path is refused, not followed.
		mode := os.FileMode(0o644)
		if names[i] == "tls.key" {
			mode = 0o600
		}
		if err := atomicwrite.Secret(filepath.Join(o.outDir, names[i]), data, mode); err != nil {
			return err
		}
	}
	o.status(o.streams, "wrote ca.crt, tls.crt and tls.key for %s.%s.svc to %s", o.service, o.namespace, o.outDir)
	bundle := base64.StdEncoding.EncodeToString(ca)
	return o.render(o.streams, func(w io.Writer, format string, _ bool) error {
		if format == "json" {
			return report.WriteJSON(w, map[string]string{"caBundle": bundle,
				"caCert": filepath.Join(o.outDir, "ca.crt"), "tlsCert": filepath.Join(o.outDir, "tls.crt"), "tlsKey": filepath.Join(o.outDir, "tls.key")})
		}
		if o.caBundle {
			_, err := fmt.Fprintln(w, bundle)
			return err
		}
		return nil
	})
}
