package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReproLinesNameTheBinaryThatRan(t *testing.T) {
	assert.Equal(t, "simrun", selfFrom("simrun"), "installed on PATH")
	assert.Equal(t, "/usr/local/bin/simrun", selfFrom("/usr/local/bin/simrun"), "a built binary by its path")
	assert.Equal(t, "go run ./cmd/simrun", selfFrom("/tmp/go-build123/b001/exe/simrun"))
	assert.Equal(t, "go run ./cmd/simrun", selfFrom("/tmp/go-build9/b001/simrun.test"))
}
