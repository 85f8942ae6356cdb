package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/sim"
)

// Size limits on what simrun reads, checked before a byte is decoded (from the file's size when
// it has one, and by reading at most one byte past the limit otherwise), so that a huge or
// endless input is refused at once instead of after gigabytes of decoding. README lists them.
const (
	// scheduleFileBytesMax bounds a schedule or corpus file: drawn and shrunk schedules are a few
	// KB, so 4 MiB is hundreds of times any real one; its shape is bounded too (sim.ParseSchedule).
	scheduleFileBytesMax = sim.ScheduleBytesMax
	// paramsFileBytesMax bounds policy's -params file: a few parameters per strategy family.
	paramsFileBytesMax = 1 << 20
	// sessionLogBytesMax bounds a session log given to check, which is read whole.
	sessionLogBytesMax = 1 << 30
)

// openInput opens a file a command reads, refusing a folder. A FIFO opens without waiting for a
// writer (a FIFO nobody writes to reads as empty, where a plain open would wait forever).
func openInput(path, what string) (*os.File, os.FileInfo, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", what, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s %s: %v", what, path, err)
	}
	if info.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("%s %s is a folder", what, path)
	}
	return f, info, nil
}

// readCapped reads the file at path, refusing one larger than limit bytes before reading it.
// what names the input in the error ("schedule file").
func readCapped(path string, limit int64, what string) ([]byte, error) {
	f, info, err := openInput(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Mode().IsRegular() && info.Size() > limit {
		return nil, fmt.Errorf("%s %s is %s, over the %s limit", what, path, byteSize(info.Size()), byteSize(limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %s is over the %s limit", what, path, byteSize(limit))
	}
	return data, nil
}

// readScheduleFile reads a schedule or corpus file (entry is nil for a plain schedule).
func readScheduleFile(path string) (sim.Schedule, *sim.CorpusEntry, error) {
	data, err := readCapped(path, scheduleFileBytesMax, "schedule file")
	if err != nil {
		return sim.Schedule{}, nil, err
	}
	schedule, entry, err := sim.LoadSchedule(data)
	if err != nil {
		return sim.Schedule{}, nil, fmt.Errorf("schedule file %s: %v", path, err)
	}
	return schedule, entry, nil
}

// byteSize renders a size in the largest binary unit that keeps it at least 1.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// namedPath is a file a command reads or writes, with the flag or argument that names it.
type namedPath struct {
	name, path string
}

// checkOutputs refuses, before anything runs, an output that cannot be written (see
// checkWritable), that is one of the inputs (it would be overwritten before or after being
// read), or that another output also names (the last write would silently win). "" is no output.
func checkOutputs(inputs, outputs []namedPath) error {
	for i, out := range outputs {
		if out.path == "" {
			continue
		}
		if out.path == "-" { // many tools read it as standard output: a file named - would surprise
			return fmt.Errorf("%s -: standard output is not an output here; give a file name (./- for a file named -)", out.name)
		}
		if err := checkWritable(out.path); err != nil {
			return fmt.Errorf("%s: %v", out.name, err)
		}
		for _, in := range inputs {
			if samePath(in.path, out.path) {
				return fmt.Errorf("%s %s is the %s being read: it would be overwritten; write to another file", out.name, out.path, in.name)
			}
		}
		for _, other := range outputs[:i] {
			if samePath(other.path, out.path) {
				return fmt.Errorf("%s and %s both name %s: one would overwrite the other; give each its own file", other.name, out.name, out.path)
			}
		}
	}
	return nil
}

// checkWritable refuses, before anything runs, an output that could not be written: its folder
// missing or taking no new file, or a target that exists and is not a regular file (a device, a
// FIFO, a symlink, a folder), which is never replaced.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckTarget(path); err != nil {
		return errors.New(outputErrorText(err))
	}
	return nil
}

// outputErrorText is an output error without atomicfile's prefix, which names the package and
// not the problem ("" for no error).
func outputErrorText(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(err.Error(), "atomicfile: ")
}

// samePath tells whether two paths name one file: the same cleaned absolute path, or, when both
// exist, the same file (through a link or another spelling).
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}

// checkCorpusDir refuses, before a run, a corpus folder that could not be written to when a
// failure is kept: a path that is a file, or whose nearest existing ancestor is not a folder or
// cannot be written in.
// ("" keeps nothing.) The folder itself is created only when a failure is saved.
func checkCorpusDir(dir string) error {
	if dir == "" {
		return nil
	}
	for at := filepath.Clean(dir); ; at = filepath.Dir(at) {
		info, err := os.Stat(at)
		switch {
		case err == nil && info.IsDir():
			return probeWritable(at, dir)
		case err == nil:
			return fmt.Errorf("cannot save failures in %s: %s is a file, not a folder", dir, at)
		case filepath.Dir(at) == at:
			return fmt.Errorf("cannot save failures in %s: no part of it exists", dir)
		}
	}
}

// probeWritable tells whether folder at takes new files (atomicfile.ProbeFolder), naming dir if
// it does not.
func probeWritable(at, dir string) error {
	if err := atomicfile.ProbeFolder(at); err != nil {
		return fmt.Errorf("cannot save failures in %s: %s cannot be written in: %v", dir, at, pathErrorText(err))
	}
	return nil
}
