package mcp

import "sort"

// Methods names every JSON-RPC method the server serves — its method
// table, in both eras — and the notifications a client sends it, sorted.
// A transport labels what it counts with these names (serve's metrics),
// and anything else as one "other" value, so a client cannot grow a
// label's values.
func (S *Server) Methods() []string {
	names := []string{methodInitialized, methodCancelled}
	for name := range S.srv.methods {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
