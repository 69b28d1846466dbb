package certs

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrNoCA is the error, wrapped with the path looked for, that Add returns
// when the directory holds no CA to sign with.
var ErrNoCA = errors.New("no CA to sign with (make one with Generate: causeway certs --dir DIR)")

// ErrPairExists is the error, wrapped with the path, that Add returns when
// a name already has a certificate and Options.Force is false.
var ErrPairExists = errors.New("already exists; refusing to replace it without Force")

// Add signs, with the CA that dir already holds (ca.crt, ca.key), a
// certificate and key for every node and client in opts, and writes them
// beside it: a node joins a cluster, or a client is given access, without
// a new CA and so without reissuing anything else. The CA is never
// changed. opts.Force lets Add replace the pairs of the names given
// (never the CA's); without it Add refuses, writing nothing, if any of
// them exists (ErrPairExists). Certificates end no later than the CA.
func Add(dir string, opts Options) error {
	if dir == "" {
		return errors.New("certs: no directory given")
	}
	if len(opts.Nodes)+len(opts.Clients) == 0 {
		return errors.New("certs: no node or client to add")
	}
	p, err := prepare(opts)
	if err != nil {
		return err
	}
	validity, now, dnsNames, ips := p.validity, p.now, p.dnsNames, p.ips
	ca, caKey, err := loadCA(dir)
	if err != nil {
		return err
	}
	if !opts.Force {
		for _, n := range append(append([]string(nil), opts.Nodes...), opts.Clients...) {
			for _, ext := range []string{".crt", ".key"} {
				path := filepath.Join(dir, FileStem(n)+ext)
				if _, err := os.Lstat(path); err == nil {
					return fmt.Errorf("certs: %s %w", path, ErrPairExists)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("certs: %w", err)
				}
			}
		}
	}
	start := now()
	notBefore, notAfter := start.Add(-backdate), start.Add(validity)
	if notAfter.After(ca.NotAfter) {
		notAfter = ca.NotAfter
	}
	if !notAfter.After(start) {
		return fmt.Errorf("certs: the CA in %s expired on %s", dir, ca.NotAfter.Format(time.DateOnly))
	}
	leaves, err := issueLeaves(opts, ca, caKey, dnsNames, ips, notBefore, notAfter)
	if err != nil {
		return err
	}
	for _, l := range leaves {
		if err := writeFile(dir, l.stem+".crt", l.certPEM, 0o644); err != nil {
			return err
		}
		if err := writeFile(dir, l.stem+".key", l.keyPEM, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// loadCA reads the CA's certificate and key from dir and checks that they
// belong together.
func loadCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPath, keyPath := filepath.Join(dir, CAName+".crt"), filepath.Join(dir, CAName+".key")
	for _, p := range []string{certPath, keyPath} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("certs: %s: %w", p, ErrNoCA)
		}
	}
	ca, err := readCert(certPath)
	if err != nil {
		return nil, nil, err
	}
	if !ca.IsCA {
		return nil, nil, fmt.Errorf("certs: %s is not a CA certificate", certPath)
	}
	data, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, nil, fmt.Errorf("certs: %s holds no PEM PRIVATE KEY block", keyPath)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: %s: %w", keyPath, err)
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok || !key.PublicKey.Equal(ca.PublicKey) {
		return nil, nil, fmt.Errorf("certs: %s is not the key of %s", keyPath, certPath)
	}
	return ca, key, nil
}
