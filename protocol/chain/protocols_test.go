package chain_test

// chainProtocols are the protocols built on the core.
var chainProtocols = []string{"fawn-kv", "chainreaction", "cr-cops"}
