package faults

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/harness"
)

// Wire is how an answer goes as bytes to a real adapter (harness/provider/openai or
// anthropic) over an in-memory connection, instead of being served by the simulator's provider
// model: the protocol, and what the wire adds to the answer's model of it. The answer's own
// fields keep their meaning: its chunks, their delay, its calls and finish, and its Fail, which is
// what the harness must record (its code, and the status and hint the wire carries).
//
// Where the failure comes (before any chunk, or after Chunks), the wire sends, in this order of
// precedence: Cut, a cut connection (refused before any response, reset mid-body); Stall,
// silence until the client gives up (TIMEOUT, by the adapter's own deadline; a TIMEOUT without
// a status is sent so too); a TRANSPORT failure as a cut connection; an EMPTY_RESPONSE as a
// finish with nothing in it; before any chunk and without InStream, an error status (the
// failure's own, else the code's usual one) with its Retry-After and error body; otherwise an
// error event inside the 200 stream. Malformed and FinishReason replace the failure: after the
// chunks, a broken event and then the finish, or the finish with that reason.
type Wire struct {
	// Protocol is the API the answer is spoken in: openai (Chat Completions, also when empty) or
	// anthropic (Messages), both streamed as server-sent events. A server (simrun serve) speaks
	// the one each request's path names, whatever this says.
	Protocol string `json:"protocol"`
	// RetryAfter is the form a failure's Retry-After is sent in (see the RetryAfter… constants);
	// empty: retry-after-ms.
	RetryAfter string `json:"retryAfter,omitempty"`
	// InStream sends a failure that comes before any chunk as an error event inside a 200 stream
	// rather than as an error status.
	InStream bool `json:"inStream,omitempty"`
	// ByCode names an error's kind by the error object's code alone, its type left null (OpenAI;
	// Anthropic's errors have a type only).
	ByCode bool `json:"byCode,omitempty"`
	// ErrorType is the error object's type (or code, with ByCode) as sent, instead of the
	// protocol's usual name for the failure's code.
	ErrorType string `json:"errorType,omitempty"`
	Malformed bool   `json:"malformed,omitempty"`
	Cut       bool   `json:"cut,omitempty"`
	Stall     bool   `json:"stall,omitempty"`
	// FinishReason is the protocol's own finish reason sent instead of the one Finish stands for.
	FinishReason string `json:"finishReason,omitempty"`
	// EmptyArguments streams the answer's calls to a tool nobody registered (UnknownTool) with no
	// arguments at all: nothing runs them, and the harness must send them back as an object.
	EmptyArguments bool `json:"emptyArguments,omitempty"`
}

// Wire protocols.
const (
	ProtocolOpenAI    = "openai"
	ProtocolAnthropic = "anthropic"
)

// Forms of Wire.RetryAfter.
const (
	// RetryAfterMs is retry-after-ms: the hint in decimal milliseconds, exactly.
	RetryAfterMs = "ms"
	// RetryAfterSeconds is Retry-After as delay-seconds, the hint rounded up to whole seconds.
	RetryAfterSeconds = "seconds"
	// RetryAfterDate, RetryAfterRFC850 and RetryAfterAsctime are Retry-After as an HTTP-date in
	// RFC 9110's three forms: the hint's end rounded up to the whole second.
	RetryAfterDate    = "date"
	RetryAfterRFC850  = "rfc850"
	RetryAfterAsctime = "asctime"
	// RetryAfterBoth is retry-after-ms with the hint and a Retry-After that says otherwise: the
	// former wins.
	RetryAfterBoth = "both"
	// RetryAfterJunk is only a Retry-After no reader may take: no hint at all.
	RetryAfterJunk = "junk"
)

// RetryAfterForms lists the forms of Wire.RetryAfter.
var RetryAfterForms = []string{RetryAfterMs, RetryAfterSeconds, RetryAfterDate, RetryAfterRFC850, RetryAfterAsctime, RetryAfterBoth, RetryAfterJunk}

// wireTextMax bounds Wire's free texts (an error type, a finish reason).
const wireTextMax = 100

// validateWire refuses a wire form the wire cannot send, naming the field.
func (a Answer) validateWire() error {
	w := a.Wire
	if w == nil {
		return nil
	}
	switch {
	case w.Protocol != "" && w.Protocol != ProtocolOpenAI && w.Protocol != ProtocolAnthropic:
		return fmt.Errorf("wire.protocol %q is not %s or %s", w.Protocol, ProtocolOpenAI, ProtocolAnthropic)
	case w.RetryAfter != "" && !slices.Contains(RetryAfterForms, w.RetryAfter):
		return fmt.Errorf("wire.retryAfter %q is not one of %s", w.RetryAfter, strings.Join(RetryAfterForms, ", "))
	case !printable(w.ErrorType) || !printable(w.FinishReason):
		return fmt.Errorf("wire.errorType and wire.finishReason must be printable ASCII of at most %d bytes", wireTextMax)
	case a.Goexit || a.NilStream || a.IgnoreCancel:
		return fmt.Errorf("wire: goexit, nilStream and ignoreCancel happen in the client's process, not on the wire")
	case a.Fail != nil && (a.Fail.Plain || len(a.Fail.Wrap) > 0):
		return fmt.Errorf("wire: a plain or wrapped error is the client's, not the wire's (fail.plain, fail.wrap)")
	case a.Fail != nil && math.Abs(a.Fail.RetryAfterMs) > 86_400_000 && w.RetryAfter != "" && w.RetryAfter != RetryAfterMs:
		return fmt.Errorf("wire.retryAfter %s: fail.retryAfterMs %g is more than a day, which only retry-after-ms sends", w.RetryAfter, a.Fail.RetryAfterMs)
	}
	shapes := 0
	for _, set := range []bool{w.Malformed, w.Cut, w.Stall, w.FinishReason != ""} {
		if set {
			shapes++
		}
	}
	if shapes > 1 {
		return fmt.Errorf("wire: at most one of malformed, cut, stall and finishReason")
	}
	return nil
}

// printable reports whether s is at most wireTextMax bytes of printable ASCII.
func printable(s string) bool {
	if len(s) > wireTextMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// ValidateAnswers refuses answers the simulator or a server cannot play, naming the answer (its
// index, from 0) and the field, by the plan's rules for answers (Plan.Validate checks them too):
// for a list served on its own (simrun serve -steps).
func ValidateAnswers(answers []Answer) error {
	if len(answers) > EntriesMax {
		return fmt.Errorf("more than %d answers", EntriesMax)
	}
	for i, a := range answers {
		if err := a.validate(); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// ValidateAnswer is ValidateAnswers of one answer, the error naming only the field.
func ValidateAnswer(a Answer) error { return a.validate() }

// messageBytesMax bounds a failure's message.
const messageBytesMax = 64 << 10

// providerCodes are the failure codes a provider reports (the harness's spec, section 2).
var providerCodes = []string{harness.CodeEmptyResponse, harness.CodeRateLimit, harness.CodeServer, harness.CodeTimeout, harness.CodeTransport, harness.CodeContextWindowExceeded, harness.CodeUnknown}

// validCode refuses a failure whose code no provider reports (a plain error has none of its own),
// and a message or status no wire could carry.
func validCode(f *Fail) error {
	switch {
	case !f.Plain && !slices.Contains(providerCodes, f.Code):
		return fmt.Errorf("fail.code %q is not one of %s", f.Code, strings.Join(providerCodes, ", "))
	case f.Status != 0 && (f.Status < 100 || f.Status > 599):
		return fmt.Errorf("fail.status %d is outside 100–599", f.Status)
	case len(f.Message) > messageBytesMax:
		return fmt.Errorf("fail.message is %d bytes, more than %d", len(f.Message), messageBytesMax)
	}
	return nil
}
