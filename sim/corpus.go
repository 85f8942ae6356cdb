package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/turnsim/turnsim/internal/atomicfile"
)

// Version is turnsim's version, recorded in every corpus file it writes.
const Version = "0.4.0"

// Corpus files: schedules that once found a bug, kept so the bug never returns. `go test ./...`
// replays every one (sim/corpus_test.go) and `simrun repro FILE` replays one.
const (
	CorpusFormat  = "turnsim-corpus"
	CorpusVersion = 1
)

// CorpusEntry is one corpus file: the schedule (minimised) and what it once broke.
type CorpusEntry struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Property is the property the schedule broke when it was found ("" for a hand-written
	// story kept as a regression test).
	Property string `json:"property"`
	// Seed is the seed that first failed (the schedule's own seed may have been simplified).
	Seed           int64  `json:"seed"`
	TurnsimVersion string `json:"turnsimVersion"`
	// FoundBy is the command that found it; Note says anything else worth knowing.
	FoundBy    string   `json:"foundBy,omitempty"`
	Note       string   `json:"note,omitempty"`
	SizeBefore int      `json:"sizeBefore,omitempty"`
	SizeAfter  int      `json:"sizeAfter,omitempty"`
	Schedule   Schedule `json:"schedule"`
}

// Marshal renders the entry as the indented JSON a corpus file holds.
func (e CorpusEntry) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(e, "", "  ")
	return append(data, '\n'), err
}

// LoadSchedule reads a schedule file or a corpus file (told apart by the corpus file's "format"
// key), refusing, with a message naming the problem, anything it cannot read faithfully. entry
// is nil for a plain schedule file.
func LoadSchedule(data []byte) (Schedule, *CorpusEntry, error) {
	var header struct {
		Format   *string         `json:"format"`
		Version  *int            `json:"version"`
		Schedule json.RawMessage `json:"schedule"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Schedule{}, nil, fmt.Errorf("sim: the file is empty")
	}
	if err := checkScheduleShape(data); err != nil {
		return Schedule{}, nil, err
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&header); err != nil {
		return Schedule{}, nil, fmt.Errorf("sim: %w", err)
	}
	if header.Format == nil {
		s, err := ParseSchedule(data)
		return s, nil, err
	}
	if *header.Format != CorpusFormat {
		return Schedule{}, nil, fmt.Errorf("sim: format %q is not %q", *header.Format, CorpusFormat)
	}
	if header.Version == nil || *header.Version != CorpusVersion {
		got := "none"
		if header.Version != nil {
			got = fmt.Sprint(*header.Version)
		}
		return Schedule{}, nil, fmt.Errorf("sim: corpus file version %s is not supported (this build reads version %d)", got, CorpusVersion)
	}
	var e CorpusEntry
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&e); err != nil {
		return Schedule{}, nil, fmt.Errorf("sim: corpus file: %w", err)
	}
	if decoder.More() {
		return Schedule{}, nil, fmt.Errorf("sim: corpus file: trailing data after the JSON object")
	}
	if header.Schedule == nil {
		return Schedule{}, nil, fmt.Errorf("sim: corpus file: no schedule in it (the \"schedule\" key holds the schedule it keeps)")
	}
	if err := e.Schedule.Validate(); err != nil {
		return Schedule{}, nil, fmt.Errorf("sim: corpus file: %w", err)
	}
	return e.Schedule, &e, nil
}

// SaveToCorpus writes entry into dir (created if missing) as PROPERTY-seedN.json, never
// overwriting: an existing name gets -2, -3, … It returns the path written. The file appears
// whole or not at all (internal/atomicfile): a kill while it is written never leaves a 0-byte
// schedule under its name, which every later `go test` would fail on; and once the process is
// stopping (interrupted), nothing is saved.
func SaveToCorpus(dir string, entry CorpusEntry) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := entry.Marshal()
	if err != nil {
		return "", err
	}
	name := entry.Property
	if name == "" {
		name = "schedule"
	}
	base := fmt.Sprintf("%s-seed%d", name, entry.Seed)
	for n := 1; ; n++ {
		path := filepath.Join(dir, base+".json")
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.json", base, n))
		}
		err := atomicfile.CreateNew(path, data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return path, nil
	}
}

// CorpusFiles lists the corpus files in dir, sorted.
func CorpusFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// notAnObject refuses JSON that is not an object (an array, a string, a number) in words, before a
// decoder names the Go type it could not fill.
func notAnObject(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if trimmed[0] == '{' {
		return nil
	}
	var what string
	switch c := trimmed[0]; {
	case c == '[':
		what = "a JSON array"
	case c == '"':
		what = "a JSON string"
	case c == 't' || c == 'f' || c == 'n':
		what = "a JSON true, false or null"
	case c == '-' || c >= '0' && c <= '9':
		what = "a JSON number"
	default:
		return nil // not JSON at all: the decoder names the byte
	}
	return fmt.Errorf("sim: the file is %s, not the JSON object of a schedule or corpus file ({\"version\": …, \"seed\": …, \"plan\": …})", what)
}
