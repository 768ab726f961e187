package loader

// NeedsConfirmation is the rule every front end applies before a skill's
// command runs: the command of a skill tagged cost=, or of a skill chosen
// from a relaxed match (no trigger phrase matched, so the choice is a
// guess), runs only once the user has said yes. mcp reports it to the
// model (fill_skill's confirm); the run command asks or refuses.
func NeedsConfirmation(cost string, relaxed bool) bool {
	return cost != "" || relaxed
}
