package mutate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/turnsim/turnsim/internal/procgroup"
)

// Options say how mutants are built and hunted.
type Options struct {
	// Root is the module the mutants patch and Main is built in.
	Root string
	// Main is the main package to build with each mutant planted (unless the mutant names its
	// own, Mutant.Main): turnsim's ./cmd/simrun/hunt, or a user's command built on sim/cli. It
	// must take `run -json -start S -seeds N -workers 1 -corpus DIR -shrink-time D` and print
	// the run's summary as JSON, as both do.
	Main string
	// Start is the first seed; Seeds bounds how many are run before a mutant is said to survive.
	Start int64
	Seeds int
	// Workers is how many mutants build and run at once (each runs its seeds on one worker).
	Workers int
	// ShrinkTime is how long to minimise each killing seed's schedule (0: do not).
	ShrinkTime time.Duration
	// Done, if set, is told of each mutant as it finishes (in any order).
	Done func(Result)
	// Work is the folder under which each mutant's build folder is made ("": the system's
	// temporary folder).
	Work string
}

// Statuses of a mutant after its hunt.
const (
	Killed        = "killed"          // its property failed (any property, if it names none)
	KilledByOther = "killed-by-other" // only other properties failed within the bound
	Survived      = "survived"        // no property failed within the bound
	Error         = "error"           // it did not apply, build or run
)

// Result is one mutant's hunt.
type Result struct {
	Name     string `json:"name"`
	Property string `json:"property,omitempty"`
	Doc      string `json:"doc,omitempty"`
	Status   string `json:"status"`
	// KilledBy is the property that caught it: its own, or the first other one to fail.
	KilledBy string `json:"killedBy,omitempty"`
	// KillSeed is the first seed that failed KilledBy; SeedsToKill counts seeds from Start to it.
	KillSeed    int64 `json:"killSeed,omitempty"`
	SeedsToKill int64 `json:"seedsToKill,omitempty"`
	// SizeBefore and SizeAfter are the killing schedule's size before and after shrinking (0
	// when not shrunk).
	SizeBefore   int     `json:"sizeBefore,omitempty"`
	SizeAfter    int     `json:"sizeAfter,omitempty"`
	SeedsRun     int64   `json:"seedsRun"`
	BuildSeconds float64 `json:"buildSeconds"`
	Seconds      float64 `json:"seconds"`
	Error        string  `json:"error,omitempty"`
}

// Run hunts every mutant and returns their results in the mutants' order.
func Run(mutants []Mutant, opts Options) []Result {
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	results := make([]Result, len(mutants))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = hunt(mutants[i], opts)
				if opts.Done != nil {
					opts.Done(results[i])
				}
			}
		}()
	}
	for i := range mutants {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// hunt builds one mutant and runs seeds in growing chunks until its property fails or the bound
// is reached, then shrinks the killing seed.
func hunt(m Mutant, opts Options) (r Result) {
	began := time.Now()
	r = Result{Name: m.Name, Property: m.Property, Doc: m.Doc, Status: Survived}
	defer func() { r.Seconds = time.Since(began).Seconds() }()
	work, err := os.MkdirTemp(opts.Work, "turnsim-mutant-"+m.Name+"-")
	if err != nil {
		return failed(r, err)
	}
	defer os.RemoveAll(work)
	binary, err := Build(m, opts.Root, m.MainOr(opts.Main), work)
	r.BuildSeconds = time.Since(began).Seconds()
	if err != nil {
		return failed(r, err)
	}
	var other *Result
	for start, size := opts.Start, int64(1); r.SeedsRun < int64(opts.Seeds); size = nextChunk(size) {
		size = min(size, int64(opts.Seeds)-r.SeedsRun)
		s, err := runSeeds(binary, opts.Root, start, size, "", 0)
		if err != nil {
			return failed(r, fmt.Errorf("mutant %s: %w", m.Name, err))
		}
		r.SeedsRun += size
		start += size
		for _, f := range s.Failures {
			for _, v := range f.Violations {
				if m.Property == "" || v.Property == m.Property {
					r.Status, r.KilledBy, r.KillSeed = Killed, v.Property, f.Seed
					break
				}
				if other == nil {
					other = &Result{KilledBy: v.Property, KillSeed: f.Seed}
				}
			}
			if r.Status == Killed {
				break
			}
		}
		if r.Status == Killed {
			break
		}
	}
	if r.Status != Killed && other != nil {
		r.Status, r.KilledBy, r.KillSeed = KilledByOther, other.KilledBy, other.KillSeed
	}
	if r.Status == Survived {
		return r
	}
	r.SeedsToKill = r.KillSeed - opts.Start + 1
	if opts.ShrinkTime > 0 {
		corpus := filepath.Join(work, "corpus")
		if err := os.Mkdir(corpus, 0o755); err != nil {
			return failed(r, err)
		}
		if _, err := runSeeds(binary, opts.Root, r.KillSeed, 1, corpus, opts.ShrinkTime); err != nil {
			return failed(r, fmt.Errorf("mutant %s: shrinking seed %d: %w", m.Name, r.KillSeed, err))
		}
		r.SizeBefore, r.SizeAfter = shrunkSizes(corpus)
	}
	return r
}

// nextChunk is the size of the chunk of seeds after one of size: the first is one seed, so that a
// mutant that breaks every seed (a livelock at its budget, a hang at its watchdog: a seed of
// either costs far more than a seed of a sound run) is killed at its first seed for one seed's
// cost; then 50, 200, 800, …
func nextChunk(size int64) int64 {
	if size == 1 {
		return 50
	}
	return size * 4
}

func failed(r Result, err error) Result {
	r.Status, r.Error = Error, err.Error()
	return r
}

// summary is the part of a run's JSON summary a hunt reads.
type summary struct {
	Failures []struct {
		Seed       int64 `json:"seed"`
		Violations []struct {
			Property string `json:"property"`
		} `json:"violations"`
	} `json:"failures"`
	ConfigError string `json:"configError"`
}

// runSeeds runs the mutant binary on count seeds from start and reads its summary. Exit codes 0
// (nothing found) and 1 (a property failed) are answers; anything else is the binary's failure.
func runSeeds(binary, dir string, start, count int64, corpus string, shrinkTime time.Duration) (summary, error) {
	args := []string{"run", "-json", "-start", strconv.FormatInt(start, 10), "-seeds", strconv.FormatInt(count, 10), "-workers", "1", "-corpus", corpus, "-shrink-time", shrinkTime.String()}
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	procgroup.Follower(cmd) // it dies with this process, and an interrupt of its group reaches it
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return summary{}, fmt.Errorf("run %v: %v\n%s", args, err, lastLines(stderr.String(), 20))
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		return summary{}, fmt.Errorf("run %v printed no JSON summary: %v\n%s", args, err, lastLines(stderr.String(), 20))
	}
	if s.ConfigError != "" {
		return summary{}, fmt.Errorf("run %v: %s", args, s.ConfigError)
	}
	return s, nil
}

// shrunkSizes reads the sizes from the one corpus file a shrinking run saved (0, 0 if none).
func shrunkSizes(corpus string) (before, after int) {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	if len(paths) == 0 {
		return 0, 0
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return 0, 0
	}
	var entry struct {
		SizeBefore int `json:"sizeBefore"`
		SizeAfter  int `json:"sizeAfter"`
	}
	if json.Unmarshal(data, &entry) != nil {
		return 0, 0
	}
	return entry.SizeBefore, entry.SizeAfter
}
