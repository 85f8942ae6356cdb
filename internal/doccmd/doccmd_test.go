package doccmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseReadsShellBlocksOnly(t *testing.T) {
	page := "intro\n```sh\ngo run ./cmd/simrun run -seeds 5   # exits 1: a finding\n\n# a comment of its own\n" +
		"go run ./cmd/simrun policy -agents 2 \\\n    -seeds 1\ncurl http://x/#frag   # not run here: needs a server\n```\n" +
		"```text\nusage: not a command\n```\n```go\nfunc main() {}\n```\n```sh\nCHAT_MODEL=m go run ./examples/chat \"a # b\"\n```\n"
	got := Parse("p.md", []byte(page))
	assert.Equal(t, []Command{
		{File: "p.md", Line: 3, Text: "go run ./cmd/simrun run -seeds 5", Comment: "exits 1: a finding", Code: 1},
		{File: "p.md", Line: 6, Text: "go run ./cmd/simrun policy -agents 2 -seeds 1"},
		{File: "p.md", Line: 8, Text: "curl http://x/#frag", Comment: "not run here: needs a server", NotRun: "needs a server"},
		{File: "p.md", Line: 17, Text: `CHAT_MODEL=m go run ./examples/chat "a # b"`},
	}, got)
}

func TestWordsGroupsQuotesAndTakesTheRedirection(t *testing.T) {
	words, stdout := Words(`go run ./cmd/simrun run -corpus "" -bench 'Schedules$' -json > shard-1.json`)
	assert.Equal(t, []string{"go", "run", "./cmd/simrun", "run", "-corpus", "", "-bench", "Schedules$", "-json"}, words)
	assert.Equal(t, "shard-1.json", stdout)
	words, stdout = Words("go test ./...")
	assert.Equal(t, []string{"go", "test", "./..."}, words)
	assert.Empty(t, stdout)
}
