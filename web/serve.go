package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Listen is where Serve accepts the console's connections.
type Listen struct {
	Addr string
	// CertFile and KeyFile, both set, serve HTTPS (TLS 1.2 or later) with
	// this PEM pair, read again when the files change.
	CertFile, KeyFile string
}

// Serving is what Serve reports once it accepts connections.
type Serving struct {
	// URL is the console's root, base path included.
	URL string
	// MetricsURL is /metrics on the metrics listener, "" without one.
	MetricsURL string
}

// Serve listens on l (and on Deps.MetricsListen, when set) until ctx ends,
// then shuts down gracefully. ready, if set, is called once both listeners
// accept connections.
func (s *Server) Serve(ctx context.Context, l Listen, ready func(Serving)) error {
	defer s.list.Close()
	idleCtx, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	go s.idle.run(idleCtx)
	console := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	scheme := "http"
	if l.CertFile != "" || l.KeyFile != "" {
		certs, err := loadCertFiles(l.CertFile, l.KeyFile, s.log)
		if err != nil {
			return err
		}
		console.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get}
		scheme = "https"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", l.Addr, err)
	}
	serving := Serving{URL: scheme + "://" + ln.Addr().String() + s.basePath + "/"}
	servers := []*http.Server{console}
	serve := []func() error{func() error {
		if console.TLSConfig != nil {
			return console.ServeTLS(ln, "", "")
		}
		return console.Serve(ln)
	}}
	if s.metricsListen != "" {
		mln, err := lc.Listen(ctx, "tcp", s.metricsListen)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listening on %s for metrics: %w", s.metricsListen, err)
		}
		// Nothing but the metrics: the listener is for scrapers inside the
		// cluster, and never carries a user's page.
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metrics.Handler())
		metrics := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		servers = append(servers, metrics)
		serve = append(serve, func() error { return metrics.Serve(mln) })
		serving.MetricsURL = "http://" + mln.Addr().String() + "/metrics"
	}
	if ready != nil {
		ready(serving)
	}
	errc := make(chan error, len(serve))
	for _, fn := range serve {
		go func() { errc <- fn() }()
	}
	var failed error
	select {
	case err := <-errc:
		failed = fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil {
			failed = errors.Join(failed, fmt.Errorf("shutting down HTTP server: %w", err))
		}
	}
	return failed
}

// certFiles serves the certificate of a PEM pair of files and picks up a
// renewed pair (cert-manager, a Secret update) without a restart: each
// handshake reads the files, which are small, and parses them only when
// their bytes changed. A pair that does not parse, such as one caught
// half-written, keeps the previous certificate in use.
type certFiles struct {
	certFile, keyFile string
	log               *slog.Logger

	mu              sync.Mutex
	certPEM, keyPEM []byte
	cert            *tls.Certificate
	// badCert and badKey are the last pair that failed to load, so it is
	// reported once rather than on every handshake.
	badCert, badKey []byte
}

func loadCertFiles(certFile, keyFile string, log *slog.Logger) (*certFiles, error) {
	c := &certFiles{certFile: certFile, keyFile: keyFile, log: log}
	certPEM, keyPEM, err := c.read()
	if err == nil {
		err = c.parse(certPEM, keyPEM)
	}
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return c, nil
}

func (c *certFiles) read() ([]byte, []byte, error) {
	certPEM, err := os.ReadFile(c.certFile)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(c.keyFile)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

func (c *certFiles) parse(certPEM, keyPEM []byte) error {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return err
	}
	c.cert, c.certPEM, c.keyPEM = &cert, certPEM, keyPEM
	return nil
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	certPEM, keyPEM, err := c.read()
	if err != nil || bytes.Equal(certPEM, c.certPEM) && bytes.Equal(keyPEM, c.keyPEM) {
		// A file missing for a moment (a Secret volume swapping its
		// files) keeps the certificate in use.
		return c.cert, nil
	}
	if err := c.parse(certPEM, keyPEM); err != nil {
		if !bytes.Equal(certPEM, c.badCert) || !bytes.Equal(keyPEM, c.badKey) {
			c.badCert, c.badKey = certPEM, keyPEM
			c.log.Warn("TLS certificate files changed but do not load; serving the previous certificate", "cert", c.certFile, "key", c.keyFile, "error", err)
		}
		return c.cert, nil
	}
	c.log.Info("TLS certificate reloaded", "cert", c.certFile)
	return c.cert, nil
}
