# Mirrors the README; nothing requires `just` (npm install -g rust-just).

# Build the static binary into ./bin/agent3md, stamped with the commit
# (agent3md version prints it even where the build info has none).
build:
    CGO_ENABLED=0 go build -ldflags "-X main.commit=$(git rev-parse HEAD 2>/dev/null)" -o bin/agent3md ./cmd/agent3md

# The test command from the README.
test:
    go test ./...

# Everything CI runs (.ci/run): gofmt, vet, staticcheck, tests, race, selftest.
ci:
    bash .ci/run

# Benchmarks: Go benchmarks plus the MCP stdio driver (QUICK=1 for small sizes).
bench:
    bash bench/run.sh

# Serve an example agent over MCP on stdio.
serve agent="examples/devtools.3md":
    go run ./cmd/agent3md mcp {{agent}}

# Drive the MCP server end to end on every example.
selftest:
    go build -o bin/agent3md ./cmd/agent3md && for f in examples/*.3md; do bin/agent3md selftest "$f"; done

# Check that every release target (linux, macOS, Windows x amd64, arm64) cross-compiles.
release-check:
    bash scripts/release-check.sh

# Release archives with goreleaser (.goreleaser.yaml), when it is installed.
release-snapshot:
    goreleaser release --snapshot --clean

# Fuzz the parser for a while.
fuzz time="2m":
    go test ./agentfile -run '^$' -fuzz FuzzParse -fuzztime {{time}}
