package wiretest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// MaxStall bounds every stalled handler: the server stops by itself even if a client never goes.
const MaxStall = 10 * time.Second

// Server is a loopback test server that counts its requests.
type Server struct {
	*httptest.Server
	Requests atomic.Int64
}

// Serve starts handler on 127.0.0.1 (httptest's loopback listener), closed when the test ends.
func Serve(t testing.TB, handler http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// SSE writes the event-stream headers and returns a function that writes one raw event block
// ("data: …" or "event: …\ndata: …") and flushes it.
func SSE(w http.ResponseWriter) func(block string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	return func(block string) {
		_, _ = w.Write([]byte(block + "\n\n"))
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// Stall holds the response open until the client goes or MaxStall passes. It reads the request
// body first: only then does net/http watch the connection and see the client go.
func Stall(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(MaxStall):
	}
}

// Reset hijacks the connection and closes it without ending the chunked body: the client sees
// the stream cut mid-answer.
func Reset(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}

// RefusedURL returns a loopback URL nothing listens on.
func RefusedURL(t testing.TB) string {
	t.Helper()
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	return url
}

// FixedClock is the injected clock of every test: it always says Now.
type FixedClock struct{}

// Now returns wiretest.Now.
func (FixedClock) Now() time.Time { return Now }

// InMemory is an http.RoundTripper that answers every request with status, headers and body
// without a socket: for tests that run an adapter inside a testing/synctest bubble, where a
// loopback connection is not a wait the bubble can see. A body of Stall blocks each read until
// the request's context is done, as a stalled server would.
type InMemory struct {
	Status int
	Header http.Header
	Body   string
	Stall  bool
}

// RoundTrip answers req.
func (m InMemory) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	var body io.ReadCloser = io.NopCloser(strings.NewReader(m.Body))
	if m.Stall {
		body = stalledBody{req.Context()}
	}
	header := m.Header
	if header == nil {
		header = http.Header{"Content-Type": {"text/event-stream"}}
	}
	return &http.Response{StatusCode: m.Status, Header: header, Body: body, Request: req}, nil
}

// stalledBody sends nothing until its request is cancelled or times out.
type stalledBody struct{ ctx context.Context }

func (b stalledBody) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, context.Cause(b.ctx)
}

func (stalledBody) Close() error { return nil }
