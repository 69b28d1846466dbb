package cluster

import (
	"fmt"
	"net/http"
	"time"

	"github.com/causeway/causeway/certs"
)

// AdminCertName is the certificate (in certs_dir) the cluster commands
// (Up's readiness check, Status, the link and clock controls: `causeway
// cluster up|status|partition|heal|delay|links`, the nemesis) present to
// the nodes' http addresses when tls is true. A node's admin endpoints
// answer only a client presenting it; Up makes it, a client certificate
// (it cannot serve), with the others.
const AdminCertName = "admin"

// HTTPClient returns the HTTP client the cluster commands reach the nodes'
// http addresses with: plain HTTP, or with tls HTTPS that accepts only a
// node certificate of the cluster's CA and presents AdminCertName's
// certificate. Each request is bounded by timeout.
func (c *Config) HTTPClient(timeout time.Duration) (*http.Client, error) {
	if !c.TLS {
		return &http.Client{Timeout: timeout}, nil
	}
	tc, err := certs.ClientConfig(c.CertsDir, AdminCertName, "")
	if err != nil {
		return nil, fmt.Errorf("cluster: the admin certificate (make it with causeway certs --dir %s --add-client %s): %w", c.CertsDir, AdminCertName, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	return &http.Client{Timeout: timeout, Transport: tr}, nil
}

// NodeURL returns the URL of path on node n's http address: https when
// tls is true, else http.
func (c *Config) NodeURL(n Node, path string) string {
	scheme := "http"
	if c.TLS {
		scheme = "https"
	}
	return scheme + "://" + n.HTTP + path
}
