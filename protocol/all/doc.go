// Package all links every protocol into a binary: importing it for its side
// effects registers each protocol with package protocol.
//
// It implements no protocol itself, so it cites no paper section, defines
// no messages and has no deviations: each registered protocol's own doc.go
// (protocol/cops, protocol/eventual, protocol/karma) carries those.
package all
