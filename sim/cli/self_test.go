package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReproLinesNameTheBinaryThatRan(t *testing.T) {
	assert.Equal(t, "simrun", selfFrom("simrun", "./cmd/simrun"), "installed on PATH")
	assert.Equal(t, "/usr/local/bin/simrun", selfFrom("/usr/local/bin/simrun", "./cmd/simrun"), "a built binary by its path")
	assert.Equal(t, "go run ./cmd/simrun", selfFrom("/tmp/go-build123/b001/exe/simrun", "./cmd/simrun"))
	assert.Equal(t, "go run ./cmd/simrun", selfFrom("/tmp/go-build9/b001/simrun.test", "./cmd/simrun"))
	assert.Equal(t, "go run ./cmd/mysim", selfFrom("/tmp/go-build9/b001/exe/mysim", ""), "a user's command without Main")
	cached := "/srv/cache/a3/a3c4c16dd6b1c4c939fdc0a2abd7831e23fed3ff52d6cd31b37d1f7aa84b75fd-d/weathersim"
	assert.Equal(t, "go run ./cmd/weathersim", selfFrom(cached, "./cmd/weathersim"), "go run's cached binary, GOCACHE anywhere")
}
