// Package k2 registers the "k2" protocol, K2, and its "paris" variant,
// PaRiS*, sharing one implementation.
//
// Source: Nguyen, Lloyd et al., "K2: Reading Quickly from Storage Across
// Many Datacenters" (k2.txt), §III–§VI; PaRiS* is k2.txt §VII-A.
//
// TODO(doc): completed in a later commit.
package k2
