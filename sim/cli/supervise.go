package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/procgroup"
)

// The process a command runs in. A command given the process's own stdout and stderr runs in a
// child process that its parent, the supervisor, watches (supervise_unix.go):
//
//   - A crash no recover can catch (a panic on a worker goroutine, the runtime out of memory) ends
//     the child without the exit code it reports on a pipe; the supervisor says it is a bug and
//     exits 3, where the runtime's own exit code, 2, would pass for bad usage.
//   - The child leads a process group of its own, holding every process it starts (a mutant's
//     build and run, a -plant build of this command); the supervisor passes every signal it gets
//     on to the group, and the child dies with the supervisor (Pdeathsig on Linux, and a pipe
//     from the supervisor everywhere: its end closes when the supervisor dies, however it dies).
//   - A stopping signal (INT, TERM, HUP) stops the command at once: no file is committed after
//     it (atomicfile.Freeze), its temporary folders go, and it ends by the same signal. SIGQUIT
//     dumps every goroutine and exits 3.

// supervisedEnv marks the child process that runs the command under a supervisor; setting it by
// hand runs the command without one.
const supervisedEnv = "SIMRUN_SUPERVISED"

// supervisedChild is set in the child: it reports its exit code on exitCodeFD. The variable is
// taken out of the child's environment at once, so that a process the child starts (a mutant
// build, for mutate or -plant) supervises itself rather than write to a pipe it does not have.
var supervisedChild bool

// lifelineFD is the child's end of a pipe whose other end only the supervisor holds: reading it
// ends (EOF) when the supervisor has died.
var lifelineFD = 4

// stopping ends the process once, whichever signal or lifeline asks first.
var stopping sync.Once

// stop stops the command on sig: no file commits after this, the processes it started are
// signalled, its temporary folders removed, and the process ends by sig (SIGQUIT: after a dump
// of every goroutine, with exit code 3).
func stop(sig os.Signal) {
	stopping.Do(func() {
		atomicfile.Freeze()
		if sig == procgroup.Quit && sig != nil {
			dumpGoroutines()
			procgroup.SignalOwnGroup(procgroup.Terminate)
			removeTemporaries()
			reportExit(exitInternal)
			os.Exit(exitInternal)
		}
		procgroup.SignalOwnGroup(sig)
		removeTemporaries()
		procgroup.Reraise(sig)
	})
	select {} // another goroutine is stopping the process
}

// dumpGoroutines writes every goroutine's stack on stderr, as the runtime's own SIGQUIT does.
func dumpGoroutines() {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	fmt.Fprintf(os.Stderr, "SIGQUIT: the goroutines of process %d:\n\n%s\nquit (SIGQUIT): the goroutine dump is above; exit code 3\n", os.Getpid(), buf)
}

// temporaries are the folders a command made for its work (mutant builds), removed when it
// stops early as when it ends.
var temporaries struct {
	sync.Mutex
	dirs map[string]bool
}

// tempDir makes a temporary folder that an interrupt removes too; the caller removes it with
// removeTemp when done.
func tempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	temporaries.Lock()
	defer temporaries.Unlock()
	if temporaries.dirs == nil {
		temporaries.dirs = map[string]bool{}
	}
	temporaries.dirs[dir] = true
	return dir, nil
}

func removeTemp(dir string) {
	os.RemoveAll(dir)
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.dirs, dir)
}

// removeTemporaries removes the command's temporary folders as it stops. Each is first moved
// aside, so that a worker still running (mutate's build a folder each) can make nothing more in
// it by its path; what is in it then goes, retried while a last write lands.
func removeTemporaries() {
	temporaries.Lock()
	defer temporaries.Unlock()
	for dir := range temporaries.dirs {
		if !filepath.IsAbs(dir) {
			continue
		}
		aside := dir + ".removing"
		if os.Rename(dir, aside) != nil {
			aside = dir
		}
		for range 5 {
			if os.RemoveAll(aside) == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
