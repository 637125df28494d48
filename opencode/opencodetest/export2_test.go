package opencodetest

// Server2Routes returns the pattern of every route an OpenCode 2 fake
// serves.
func Server2Routes() []string {
	out := make([]string, 0, len(server2Routes))
	for _, rt := range server2Routes {
		out = append(out, rt.pattern)
	}
	return out
}
