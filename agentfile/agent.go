package agentfile

// InputTypes are the canonical agent3md/1 input types.
var InputTypes = []string{"string", "number", "boolean", "object", "array"}

// Agent is the agent3md/1 reading of a Catalog: who the agent is and which
// planes are skills. It holds no bodies either.
type Agent struct {
	// Name is title, else frontmatter agent, else "agent"; Named is false
	// when neither title nor agent is set (the validator's frontmatter rule).
	Name  string
	Named bool
	// Model defaults to "unknown".
	Model string
	// Tools and Triggers are the frontmatter comma lists, trimmed, empties
	// dropped.
	Tools    []string
	Triggers []string
	Persona  string
	Version  string
	// Entry is the raw frontmatter entry value; HasEntry tells "" from none.
	Entry    string
	HasEntry bool
	// Identity is the index in Catalog.Planes of the identity plane: the
	// first plane with kind=identity, else the first plane; -1 when the
	// document has no planes.
	Identity int
	// Skills are all other planes, in source order.
	Skills []Skill
}

// Skill is one skill plane in agent3md/1 terms.
type Skill struct {
	// Plane is the index of the skill's plane in Catalog.Planes.
	Plane int
	// Name is the plane's label, or "skill-<z>" when it has none.
	Name string
	Z    float64
	// Triggers are the trigger phrases (comma list, trimmed, empties dropped).
	Triggers []string
	// Inputs are the declared inputs in order; InputErrors holds the raw
	// entries that could not be read as name[:type][?].
	Inputs []Input
	// Tool is the command template ("" when the skill has none); HasTool
	// tells tool="" (an empty binding) from no tool attribute.
	Tool    string
	HasTool bool
	// Cost is the optional cost tag.
	Cost string
	// Deps are the integer targets of the body's [[z=<digits>]] links, in
	// body order (duplicates kept, as written).
	Deps []float64
}

// Input is one declared skill input.
type Input struct {
	Name string
	// Type is lowercased; "string" when the declaration has none.
	Type     string
	Optional bool
}
