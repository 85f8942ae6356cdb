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

// Step is one planned answer with what the wire adds to the plan's model of it.
type Step struct {
	faults.Answer
	// RetryAfterForm is how a failure's RetryAfterMs is sent: FormMs (retry-after-ms, exact, the
	// default), FormSeconds (Retry-After delay-seconds, rounded up) or FormDate (an IMF-fixdate).
	RetryAfterForm string `json:"retryAfterForm,omitempty"`
	// Malformed sends a broken event after the chunks instead of the rest of the answer.
	Malformed bool `json:"malformed,omitempty"`
	// StallMs holds the response before its first byte (a stall no header ends).
	StallMs int64 `json:"stallMs,omitempty"`
}

// Retry-After forms.
const (
	FormMs      = "ms"
	FormSeconds = "seconds"
	FormDate    = "date"
)

// Config is what a server plays and within which bounds.
type Config struct {
	Steps []Step
	// After is the answer once Steps are used up (the simulator's clean answer when zero).
	After *faults.Answer
	// MaxRequests bounds how many requests are served (default 1000); later ones get 503.
	MaxRequests int
	// MaxDuration bounds the server's life (default 10 min); Serve stops by itself then.
	MaxDuration time.Duration
	// Scale multiplies every delay (default 1): 0.1 plays a plan ten times faster.
	Scale float64
	// Now is the clock HTTP-dates are written against (default time.Now).
	Now func() time.Time
}

// cleanAnswer mirrors the simulator's: one text chunk after 20 ms, completed.
var cleanAnswer = faults.Answer{Chunks: 1, ChunkDelayMs: 20, Finish: "completed"}

// Server plays a plan. It is an http.Handler; Listen serves it on loopback.
type Server struct {
	cfg    Config
	mu     sync.Mutex
	served int
}

// New checks cfg and builds a server.
func New(cfg Config) (*Server, error) {
	if cfg.MaxRequests < 0 || cfg.MaxDuration < 0 || cfg.Scale < 0 {
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
	for i, s := range cfg.Steps {
		switch s.RetryAfterForm {
		case "", FormMs, FormSeconds, FormDate:
		default:
			return nil, fmt.Errorf("faultserver: step %d: unknown retryAfterForm %q (want ms, seconds or date)", i, s.RetryAfterForm)
		}
	}
	return &Server{cfg: cfg}, nil
}

// FromPlan is the steps of a plan's provider answers, each sent in the exact form (a Goexit or a
// nil stream as a cut connection).
func FromPlan(p *faults.Plan) []Step {
	steps := make([]Step, len(p.Answers))
	for i, a := range p.Answers {
		if a.Goexit {
			// A provider ending its caller's goroutine (provider-goexit) happens in the client's
			// process; the nearest a server comes is to stop mid-answer: a cut connection.
			a.Goexit, a.Fail = false, &faults.Fail{Code: harness.CodeTransport, Message: "connection cut"}
		}
		if a.NilStream {
			// Neither a stream nor an error (provider-nil-stream) is a client adapter's bug, with
			// no wire form: served, like a Goexit, as a cut connection.
			a.NilStream, a.Fail = false, &faults.Fail{Code: harness.CodeTransport, Message: "connection cut"}
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

// next takes the next step in request order, and its index; ok is false past MaxRequests.
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
	var proto protocol
	switch r.URL.Path {
	case "/v1/chat/completions", "/chat/completions":
		proto = openAI{}
	case "/v1/messages", "/messages":
		proto = anthropic{}
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
		proto.errorResponse(w, http.StatusServiceUnavailable, "faultserver: request limit reached", "")
		return
	}
	play(s, w, r, proto, step, index)
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
