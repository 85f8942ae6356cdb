package sim

import (
	"fmt"
	"os"
)

// MutantEnv names the environment variable that says which mutant a test binary was built with:
// a test of how a planted defect is caught runs only in a build that plants it,
//
//	TURNSIM_MUTANT=NAME go test -overlay "$(go run ./cmd/MYSIM mutate -overlay NAME)" -run Mutant ./...
//
// and skips in every other (see RequireMutant).
const MutantEnv = "TURNSIM_MUTANT"

// Skipper is what RequireMutant needs of a test; *testing.T is one.
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
}

// RequireMutant skips t unless its test binary was built with the mutant name planted, naming the
// command that plants it; mutate is the module's own command (e.g. "go run ./cmd/simrun").
func RequireMutant(t Skipper, name, mutate string) {
	t.Helper()
	if os.Getenv(MutantEnv) != name {
		t.Skipf("needs the %s mutant planted: %s=%s go test -overlay \"$(%s mutate -overlay %s)\" -run Mutant",
			name, MutantEnv, name, mutate, name)
	}
}

// Recorder is a TestingT that keeps what Check reports, for a test that expects Check to fail (a
// planted mutant must be caught) and looks at how.
type Recorder struct {
	// Errors are Check's reports, in order: the failing seed and its repro line first.
	Errors []string
}

// Helper does nothing: a Recorder has no stack to trim.
func (*Recorder) Helper() {}

// Errorf keeps one report.
func (r *Recorder) Errorf(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}
