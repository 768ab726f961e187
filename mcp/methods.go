package mcp

import "sort"

// servedFeatures are the features every server registers, in order.
var servedFeatures = []*feature{lifecycleFeature, toolsFeature, resourcesFeature, promptsFeature, completionFeature, skillsFeature, listenFeature}

// Methods names every JSON-RPC method a server serves — the method table
// of its features, in both eras — and the notifications a client sends
// it, sorted. A transport labels what it counts with these names (serve's
// metrics), and anything else as one "other" value, so a client cannot
// grow a label's values.
func Methods() []string {
	names := []string{methodInitialized, methodCancelled}
	for _, f := range servedFeatures {
		for name := range f.methods {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// toolTable is the served tools in list order, each declared in a file of
// its own (listskills.go, routeskill.go, getskill.go, resolveskill.go,
// fillskill.go). Descriptions are written for a model: when to call the
// tool, in a sentence or two.
var toolTable = []*toolDef{listSkillsTool, routeSkillTool, getSkillTool, resolveSkillTool, fillSkillTool}
