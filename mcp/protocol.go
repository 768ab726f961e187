package mcp

// Protocol revisions served (docs/protocol.md §1). Dates compare as strings.
const (
	version20241105 = "2024-11-05"
	version20250326 = "2025-03-26"
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
	version20260728 = "2026-07-28"
)

// legacyVersions are the initialize-handshake revisions, newest first.
var legacyVersions = []string{version20251125, version20250618, version20250326, version20241105}

// supportedVersions is every revision served, both eras, newest first: the
// discover result's supportedVersions and -32022's data.supported.
var supportedVersions = append([]string{version20260728}, legacyVersions...)

// MCP method names: the one place they are spelled.
const (
	methodInitialize         = "initialize"
	methodInitialized        = "notifications/initialized"
	methodPing               = "ping"
	methodDiscover           = "server/discover"
	methodToolsList          = "tools/list"
	methodToolsCall          = "tools/call"
	methodCancelled          = "notifications/cancelled"
	methodPromptsList        = "prompts/list"
	methodPromptsGet         = "prompts/get"
	methodComplete           = "completion/complete"
	methodResourcesList      = "resources/list"
	methodResourcesRead      = "resources/read"
	methodResourcesTemplates = "resources/templates/list"
	methodResourcesSubscribe = "resources/subscribe"
	methodResourcesUnsub     = "resources/unsubscribe"
	methodDirectoryRead      = "resources/directory/read"
	methodSkillsList         = "skills/list"
	methodSkillsGet          = "skills/get"
	methodListen             = "subscriptions/listen"
	methodListenAcked        = "notifications/subscriptions/acknowledged"
	methodToolsChanged       = "notifications/tools/list_changed"
	methodPromptsChanged     = "notifications/prompts/list_changed"
	methodResChanged         = "notifications/resources/list_changed"
)

// removedInModern are the methods 2026-07-28 dropped (docs/protocol.md §1); a
// modern request for one gets -32601 naming the removal.
var removedInModern = map[string]bool{
	methodInitialize:                   true,
	methodInitialized:                  true,
	methodPing:                         true,
	"logging/setLevel":                 true,
	"resources/subscribe":              true,
	"resources/unsubscribe":            true,
	"notifications/roots/list_changed": true,
}

// Modern _meta keys (docs/protocol.md §1).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// negotiate picks the answer to initialize's protocolVersion: the requested
// legacy revision when served, else the newest legacy one (never the
// handshake-less 2026-07-28).
func negotiate(requested string) string {
	for _, v := range legacyVersions {
		if v == requested {
			return v
		}
	}
	return legacyVersions[0]
}

// modernFields are the keys every 2026-07-28 result carries; result types
// embed it and stampModern fills it. Legacy results leave it empty, so none
// of the keys appear.
type modernFields struct {
	ResultType string         `json:"resultType,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
	TTLMs      *int64         `json:"ttlMs,omitempty"`
	CacheScope string         `json:"cacheScope,omitempty"`
}

func (m *modernFields) modernPart() *modernFields { return m }

type modernResult interface{ modernPart() *modernFields }

// methodProgress is the notification a request that sent a progress token
// gets while it waits on long work.
const methodProgress = "notifications/progress"

// methodResourceUpdated tells a subscriber a resource's bytes changed.
const methodResourceUpdated = "notifications/resources/updated"
