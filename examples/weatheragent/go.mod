module example.com/weatheragent

go 1.26.8

require github.com/turnsim/turnsim v0.0.0

require pgregory.net/rapid v1.3.0

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

// The example builds against the turnsim in this repository, offline; a real user's module
// requires a released version instead and drops this line.
replace github.com/turnsim/turnsim => ../..
