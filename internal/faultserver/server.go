package faultserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/harness"
)

// Config is what a server plays and within which bounds.
type Config struct {
	// Steps are the answers, in request order, each in the format of a schedule's plan.answers,
	// its wire form (faults.Wire) included, with its calls' arguments; the protocol is the one
	// each request's path names.
	Steps []Step
	// After is the answer once Steps are used up (the simulator's clean answer when nil).
	After *faults.Answer
	// MaxRequests bounds how many requests are served (default 1000); later ones get 503.
	MaxRequests int
	// MaxDuration bounds the server's life (default 10 min); Serve stops by itself then.
	MaxDuration time.Duration
	// Scale multiplies every delay (default 1): 0.1 plays a plan ten times faster.
	Scale float64
	// Now is the clock HTTP-dates are written against (default time.Now).
	Now func() time.Time
	// Arguments gives the arguments of a call to the named tool that the plan gives none (a
	// user's generator, as sim.Agent.Arguments); nil: turnsim's envelope of the planned call.
	Arguments func(tool string) string
}

// cleanAnswer mirrors the simulator's: one text chunk after 20 ms, completed.
var cleanAnswer = faults.Answer{Chunks: 1, ChunkDelayMs: 20, Finish: harness.FinishCompleted}

// Server plays a plan. It is an http.Handler; Listen serves it on loopback.
type Server struct {
	cfg    Config
	mu     sync.Mutex
	served int
}

// New checks cfg and builds a server.
func New(cfg Config) (*Server, error) {
	if cfg.MaxRequests < 0 || cfg.MaxDuration < 0 || !(cfg.Scale >= 0) {
		return nil, errors.New("faultserver: config: MaxRequests, MaxDuration and Scale must not be negative")
	}
	if cfg.MaxRequests == 0 {
		cfg.MaxRequests = 1000
	}
	if cfg.MaxDuration == 0 {
		cfg.MaxDuration = 10 * time.Minute
	}
	if cfg.Scale == 0 {
		cfg.Scale = 1
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(cfg.Steps) > faults.EntriesMax {
		return nil, fmt.Errorf("faultserver: steps: more than %d", faults.EntriesMax)
	}
	for i, step := range cfg.Steps {
		if err := step.Validate(); err != nil {
			return nil, fmt.Errorf("faultserver: steps[%d]: %w", i, err)
		}
	}
	return &Server{cfg: cfg}, nil
}

// FromPlan is a plan's provider answers as the server plays them: a Goexit or a nil stream (a
// client's own failures, with no wire form) as a cut connection, and every answer in the form the
// wire sends it, its wrapping and its stream's deafness to a cancel (the client's too) dropped.
func FromPlan(p *faults.Plan) []Step {
	steps := make([]Step, len(p.Answers))
	for i, a := range p.Answers {
		if a.Goexit || a.NilStream {
			// A provider ending its caller's goroutine (provider-goexit), or answering neither a
			// stream nor an error (provider-nil-stream), happens in the client's process; the
			// nearest a server comes is to stop mid-answer: a cut connection.
			a.Goexit, a.NilStream, a.Fail = false, false, &faults.Fail{Code: harness.CodeTransport, Message: "connection cut"}
		}
		a.IgnoreCancel = false
		if a.Fail != nil && len(a.Fail.Wrap) > 0 {
			f := *a.Fail
			f.Wrap = nil
			a.Fail = &f
		}
		steps[i] = Step{Answer: a}
	}
	return steps
}

// Served is how many requests the server has taken.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// next takes the next answer in request order, and its index; ok is false past MaxRequests.
func (s *Server) next() (Step, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.served
	s.served++
	if i >= s.cfg.MaxRequests {
		return Step{}, i, false
	}
	if i < len(s.cfg.Steps) {
		return s.cfg.Steps[i], i, true
	}
	if s.cfg.After != nil {
		return Step{Answer: *s.cfg.After}, i, true
	}
	return Step{Answer: cleanAnswer}, i, true
}

// ServeHTTP answers one request in the protocol its path names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var protocol string
	switch r.URL.Path {
	case "/v1/chat/completions", "/chat/completions":
		protocol = faults.ProtocolOpenAI
	case "/v1/messages", "/messages":
		protocol = faults.ProtocolAnthropic
	default:
		http.Error(w, "faultserver: POST /v1/chat/completions (OpenAI) or /v1/messages (Anthropic)", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "faultserver: POST only", http.StatusMethodNotAllowed)
		return
	}
	step, index, ok := s.next()
	if !ok {
		step = Step{Answer: faults.Answer{Fail: &faults.Fail{Code: harness.CodeServer, Message: "faultserver: request limit reached", Status: http.StatusServiceUnavailable}}}
	}
	wire := faults.Wire{}
	if step.Wire != nil {
		wire = *step.Wire
	}
	wire.Protocol = protocol
	step.Wire = &wire
	play(s, w, r, step, index)
}

// Listen serves s on addr, which must be a loopback address (127.0.0.1:0 picks a port), until
// ctx is done or MaxDuration passes. It returns the base URL once listening, and a channel that
// is closed when the server has stopped.
func Listen(ctx context.Context, addr string, s *Server) (string, <-chan struct{}, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("faultserver: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", nil, fmt.Errorf("faultserver: address %q is not loopback: the fault server only listens on 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("faultserver: listen: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.MaxDuration)
	stopped := make(chan struct{})
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		defer close(stopped)
		defer cancel()
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), stopped, nil
}
