package folderwrite

// markerFile is the name of the marker file written into each skill
// folder (Marker).
const markerFile = ".agent3md-export.json"

// Marker is the content of a skill folder's marker file: which agent wrote
// the folder, from which file, and the files it wrote there.
type Marker struct {
	Agent  string   `json:"agent"`
	Source string   `json:"source"` // the agent file, as an absolute path
	Skill  string   `json:"skill"`
	Files  []string `json:"files"` // slash paths inside the folder, sorted
	// Origin owns the folder instead of Agent when set: the source a
	// sync copied it from (WriteOptions.Origin); URI is where its
	// SKILL.md came from. Digests is the SHA-256 of each file written
	// (every writer records them); a file the marker lists without a
	// digest is never judged edited (editedFiles).
	Origin  string            `json:"origin,omitempty"`
	URI     string            `json:"uri,omitempty"`
	Digests map[string]string `json:"digests,omitempty"`
	// Head is what the folder's AGENT.md cannot say exactly, for import
	// (docs/skill-folders.md §11).
	Head *AgentHead `json:"head,omitempty"`
}

// AgentHead is an agent file's frontmatter and identity plane as export
// read them, so that import gives them back key for key.
type AgentHead struct {
	// Frontmatter holds every key and value, in file order.
	Frontmatter [][2]string `json:"frontmatter"`
	// IdentityZ is the identity plane's z as written ("" when there is
	// none); IdentityLabel its label, nil when it has none.
	IdentityZ     string  `json:"identityZ,omitempty"`
	IdentityLabel *string `json:"identityLabel,omitempty"`
}
