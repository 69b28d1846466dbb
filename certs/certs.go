// Package certs makes and loads the mutual-TLS certificates of a live
// Causeway cluster.
//
// Generate writes a private certificate authority (ca.crt, ca.key) and, for
// every node and client name, a certificate and key signed by it
// (NAME.crt, NAME.key, with any "/" in the name written as "_"). Every key
// is ECDSA P-256, every file PEM, and every key file mode 0600.
//
// Add signs more certificates with a CA Generate made, without replacing
// it: a node that joins the cluster, or a new client, gets a pair the
// existing nodes already trust.
//
// ServerConfig and ClientConfig turn such a directory into tls.Configs in
// which both ends prove who they are: a server accepts only peers holding a
// certificate from the same CA, and a client accepts only a server that
// does. Node certificates serve and dial (nodes connect to one another);
// client certificates only dial.
package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CAName is the file stem of the certificate authority: Generate writes
// CAName+".crt" and CAName+".key", and no node or client may take the name.
const CAName = "ca"

// DefaultHosts are the names a node certificate is valid for when
// Options.Hosts is empty: the loopback host by name and by IPv4 and IPv6
// address.
var DefaultHosts = []string{"localhost", "127.0.0.1", "::1"}

// DefaultValidity is how long certificates last when Options.Validity is
// zero: one year.
const DefaultValidity = 365 * 24 * time.Hour

// DefaultServerName is the name ClientConfig expects in the server's
// certificate when it is given none.
const DefaultServerName = "localhost"

// backdate is how long before Options.Now certificates become valid, so
// that hosts whose clocks run a little behind accept them at once.
const backdate = 5 * time.Minute

// ErrCAExists is the error, wrapped with the path of the CA's key, that
// Generate returns when the directory already holds a CA and Options.Force
// is false.
var ErrCAExists = errors.New("already exists; refusing to replace the CA (every certificate it signed would stop being trusted) without Force")

// Options says which certificates Generate makes.
type Options struct {
	// Nodes are the names of the store's nodes, such as "a/s0". Each gets a
	// certificate for both serving and dialing, valid for Hosts.
	Nodes []string
	// Clients are the names of the clients, such as "client". Each gets a
	// certificate for dialing only.
	Clients []string
	// Hosts are the DNS names and IP addresses node certificates are valid
	// for; empty means DefaultHosts.
	Hosts []string
	// Validity is how long every certificate lasts from Now; zero means
	// DefaultValidity.
	Validity time.Duration
	// Now is the clock certificates start from; nil means time.Now. Tests
	// set it to make certificates that have already expired.
	Now func() time.Time
	// Force lets Generate replace a CA that dir already holds. Without it
	// Generate refuses, since every certificate the old CA signed would stop
	// being trusted by anything configured with the new one.
	Force bool
}

// FileStem is the file name, without extension, of the certificate and key
// of the node or client name: name with every "/" replaced by "_".
func FileStem(name string) string { return strings.ReplaceAll(name, "/", "_") }

// issued is a certificate and key ready to be written.
type issued struct {
	stem            string
	certPEM, keyPEM []byte
}

// Generate writes a new CA and a certificate and key for every node and
// client in opts into dir, creating dir (mode 0700) if needed, and
// replacing any files of the same names. It refuses, writing nothing, if
// dir already holds ca.key and opts.Force is false (ErrCAExists), or if a
// name is empty, is "ca", contains "\" or "..", or shares its file name
// with another.
func Generate(dir string, opts Options) error {
	if dir == "" {
		return errors.New("certs: no directory given")
	}
	p, err := prepare(opts)
	if err != nil {
		return err
	}
	validity, now, dnsNames, ips := p.validity, p.now, p.dnsNames, p.ips

	caKeyPath := filepath.Join(dir, CAName+".key")
	if _, err := os.Lstat(caKeyPath); err == nil {
		if !opts.Force {
			return fmt.Errorf("certs: %s %w", caKeyPath, ErrCAExists)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("certs: %w", err)
	}

	start := now()
	notBefore, notAfter := start.Add(-backdate), start.Add(validity)

	// Make everything in memory first, so that a failure writes nothing.
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("certs: CA key: %w", err)
	}
	caSerial, err := serial()
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          caSerial,
		Subject:               pkix.Name{CommonName: "Causeway CA", Organization: []string{"Causeway"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	ca, caPEM, err := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("certs: CA: %w", err)
	}
	caKeyPEM, err := keyPEM(caKey)
	if err != nil {
		return fmt.Errorf("certs: CA key: %w", err)
	}

	leaves, err := issueLeaves(opts, ca, caKey, dnsNames, ips, notBefore, notAfter)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	// The CA goes last, so that a write failing part way leaves no ca.key
	// and a second run needs no Force.
	for _, l := range leaves {
		if err := writeFile(dir, l.stem+".crt", l.certPEM, 0o644); err != nil {
			return err
		}
		if err := writeFile(dir, l.stem+".key", l.keyPEM, 0o600); err != nil {
			return err
		}
	}
	if err := writeFile(dir, CAName+".crt", caPEM, 0o644); err != nil {
		return err
	}
	return writeFile(dir, CAName+".key", caKeyPEM, 0o600)
}

// parseHosts splits hosts (DefaultHosts when empty) into DNS names and
// IP addresses.
// issuePlan is what Generate and Add take from Options before they issue
// anything: the validity, the clock, and the hosts split into DNS names
// and IP addresses.
type issuePlan struct {
	validity time.Duration
	now      func() time.Time
	dnsNames []string
	ips      []net.IP
}

// prepare checks opts (validity, names, hosts) and returns its plan.
func prepare(opts Options) (issuePlan, error) {
	p := issuePlan{validity: opts.Validity, now: time.Now}
	if p.validity == 0 {
		p.validity = DefaultValidity
	}
	if p.validity < 0 {
		return p, fmt.Errorf("certs: validity %v is negative", p.validity)
	}
	if opts.Now != nil {
		p.now = opts.Now
	}
	if err := checkNames(opts); err != nil {
		return p, err
	}
	var err error
	p.dnsNames, p.ips, err = parseHosts(opts.Hosts)
	return p, err
}

func parseHosts(hosts []string) (dnsNames []string, ips []net.IP, err error) {
	if len(hosts) == 0 {
		hosts = DefaultHosts
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, nil, errors.New("certs: empty host name")
		}
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dnsNames = append(dnsNames, h)
		}
	}
	return dnsNames, ips, nil
}

// checkNames refuses an empty name, "ca", a name with "\" or "..", and two
// names written to the same files.
func checkNames(opts Options) error {
	seen := map[string]string{CAName: CAName}
	check := func(kind, name string) error {
		if name == "" {
			return fmt.Errorf("certs: empty %s name", kind)
		}
		if strings.Contains(name, `\`) || strings.Contains(name, "..") || name != strings.TrimSpace(name) {
			return fmt.Errorf("certs: %s name %q: no \\, .. or surrounding spaces allowed", kind, name)
		}
		stem := FileStem(name)
		if prev, ok := seen[stem]; ok {
			if prev == CAName {
				return fmt.Errorf("certs: %s name %q is reserved for the CA", kind, name)
			}
			return fmt.Errorf("certs: %s name %q and %q would both be written to %s.crt", kind, name, prev, stem)
		}
		seen[stem] = name
		return nil
	}
	for _, n := range opts.Nodes {
		if err := check("node", n); err != nil {
			return err
		}
	}
	for _, n := range opts.Clients {
		if err := check("client", n); err != nil {
			return err
		}
	}
	return nil
}

// issueLeaves signs with ca a certificate and key for every node (serving
// and dialing, valid for dnsNames and ips) and client (dialing) of opts.
func issueLeaves(opts Options, ca *x509.Certificate, caKey *ecdsa.PrivateKey, dnsNames []string, ips []net.IP, notBefore, notAfter time.Time) ([]issued, error) {
	var leaves []issued
	leaf := func(name string, server bool) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return fmt.Errorf("certs: key for %s: %w", name, err)
		}
		sn, err := serial()
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber:          sn,
			Subject:               pkix.Name{CommonName: name, Organization: []string{"Causeway"}},
			NotBefore:             notBefore,
			NotAfter:              notAfter,
			KeyUsage:              x509.KeyUsageDigitalSignature,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
			BasicConstraintsValid: true,
		}
		if server {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
			tmpl.DNSNames = dnsNames
			tmpl.IPAddresses = ips
		}
		_, certPEM, err := sign(tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return fmt.Errorf("certs: certificate for %s: %w", name, err)
		}
		kp, err := keyPEM(key)
		if err != nil {
			return fmt.Errorf("certs: key for %s: %w", name, err)
		}
		leaves = append(leaves, issued{stem: FileStem(name), certPEM: certPEM, keyPEM: kp})
		return nil
	}
	for _, n := range opts.Nodes {
		if err := leaf(n, true); err != nil {
			return nil, err
		}
	}
	for _, n := range opts.Clients {
		if err := leaf(n, false); err != nil {
			return nil, err
		}
	}
	return leaves, nil
}

// serial is a random 128-bit certificate serial number.
func serial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("certs: serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil // never zero
}

// sign issues tmpl for pub, signed by parent's key priv, and returns the
// parsed certificate and its PEM.
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, priv *ecdsa.PrivateKey) (*x509.Certificate, []byte, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, priv)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// keyPEM is key as a PKCS #8 "PRIVATE KEY" PEM block.
func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// writeFile writes data to dir/name with mode perm, replacing any file
// there: it writes a temporary file and renames it into place, so that a
// replaced key never passes through a wider mode and a reader never sees
// half a file.
func writeFile(dir, name string, data []byte, perm os.FileMode) error {
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".*.tmp") // created 0600
	if err != nil {
		return fmt.Errorf("certs: write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("certs: write %s: %w", path, err)
	}
	return nil
}

// ServerConfig is the TLS configuration for node name serving from the
// certificates in dir: it presents name's certificate, requires every
// client to present a certificate signed by dir's CA, and speaks TLS 1.3
// only.
func ServerConfig(dir, name string) (*tls.Config, error) {
	cert, pool, err := load(dir, name)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS13,
	}, nil
}

// ClientConfig is the TLS configuration for node or client name dialing
// with the certificates in dir: it presents name's certificate and accepts
// only a server whose certificate dir's CA signed for serverName (empty
// means DefaultServerName). It speaks TLS 1.3 only.
func ClientConfig(dir, name, serverName string) (*tls.Config, error) {
	cert, pool, err := load(dir, name)
	if err != nil {
		return nil, err
	}
	if serverName == "" {
		serverName = DefaultServerName
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		RootCAs:      pool,
		ServerName:   serverName,
		MinVersion:   tls.VersionTLS13,
	}, nil
}

// load reads name's certificate and key and the CA from dir, and checks
// that the CA signed the certificate.
func load(dir, name string) (tls.Certificate, *x509.CertPool, error) {
	if name == "" {
		return tls.Certificate{}, nil, errors.New("certs: no certificate name given")
	}
	caPath := filepath.Join(dir, CAName+".crt")
	ca, err := readCert(caPath)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	if !ca.IsCA {
		return tls.Certificate{}, nil, fmt.Errorf("certs: %s is not a CA certificate", caPath)
	}
	stem := FileStem(name)
	certPath, keyPath := filepath.Join(dir, stem+".crt"), filepath.Join(dir, stem+".key")
	leaf, err := readCert(certPath)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	if err := leaf.CheckSignatureFrom(ca); err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("certs: %s was not signed by %s: %w", certPath, caPath, err)
	}
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("certs: %w", err)
	}
	keyData, err := os.ReadFile(keyPath)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("certs: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyData)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("certs: %s with %s: %w", keyPath, certPath, err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pair, pool, nil
}

// readCert reads the one PEM certificate in path.
func readCert(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("certs: %s holds no PEM CERTIFICATE block", path)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("certs: %s holds more than one PEM block", path)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("certs: %s: %w", path, err)
	}
	return cert, nil
}
