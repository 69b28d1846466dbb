package client

import (
	"encoding/binary"
	"fmt"
)

// A token handed out by a session of a live cluster whose cluster.yaml
// has an id (cluster.Config.ID) names that cluster, so that another
// cluster refuses it with ErrBadToken instead of making the resumed
// session wait for writes it never had. The protocol's token (the
// envelope of protocol.EncodeToken, which starts "cw" and a format
// version byte) is wrapped in
//
//	"cwC"                  3 bytes, the magic
//	clusterTokenFormat     1 byte
//	len(id), id            uvarint and bytes: the cluster's ID
//	protocol token         the rest
//
// A session with no cluster ID (New over another runtime, an older
// cluster file) hands out the protocol's token alone, as before, and a
// token without a cluster ID is accepted by any cluster running the same
// protocol.
const (
	clusterTokenMagic  = "cwC"
	clusterTokenFormat = 1
	maxClusterID       = 64
)

// wrapClusterToken wraps protocol token b with cluster ID id (b itself
// when id is empty).
func wrapClusterToken(id string, b []byte) []byte {
	if id == "" {
		return b
	}
	out := make([]byte, 0, len(clusterTokenMagic)+1+binary.MaxVarintLen64+len(id)+len(b))
	out = append(out, clusterTokenMagic...)
	out = append(out, clusterTokenFormat)
	out = binary.AppendUvarint(out, uint64(len(id)))
	out = append(out, id...)
	return append(out, b...)
}

// unwrapClusterToken returns the protocol token inside b and the cluster
// ID it names ("" for a token without one). It fails, wrapping
// ErrBadToken, only for a damaged cluster envelope.
func unwrapClusterToken(b []byte) (id string, inner []byte, err error) {
	if len(b) < len(clusterTokenMagic) || string(b[:len(clusterTokenMagic)]) != clusterTokenMagic {
		return "", b, nil
	}
	rest := b[len(clusterTokenMagic):]
	if len(rest) == 0 || rest[0] != clusterTokenFormat {
		return "", nil, fmt.Errorf("%w: unknown cluster envelope format", ErrBadToken)
	}
	rest = rest[1:]
	n, w := binary.Uvarint(rest)
	if w <= 0 || n == 0 || n > maxClusterID || n > uint64(len(rest)-w) {
		return "", nil, fmt.Errorf("%w: truncated or damaged cluster envelope", ErrBadToken)
	}
	return string(rest[w : w+int(n)]), rest[w+int(n):], nil
}

// checkClusterToken returns the protocol token inside b after checking
// that it was not made by a cluster other than the one named want
// (ErrBadToken, naming both).
func checkClusterToken(want string, b []byte) ([]byte, error) {
	id, inner, err := unwrapClusterToken(b)
	if err != nil {
		return nil, err
	}
	if id != "" && want != "" && id != want {
		return nil, fmt.Errorf("%w: taken on cluster %s, this is cluster %s (a token is valid only on the cluster that issued it)", ErrBadToken, id, want)
	}
	return inner, nil
}
