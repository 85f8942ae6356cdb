package harness

import (
	"reflect"
	"strings"
)

// errorChainDepthMax bounds how deep ErrorChain walks, so a pathological Unwrap cannot recurse
// forever even when its errors are not comparable (and so escape cycle detection).
const errorChainDepthMax = 64

// ErrorChain renders an error and all its causes as one readable line. A Go error that wraps
// another with %w already repeats the cause in its own message; ErrorChain strips that repeat, so
// each error in the chain appears once: "fetch failed: dial tcp: connection refused". Joined errors
// (Unwrap() []error) render as "[a; b]" after their own message. An error seen before on the same
// path prints "<circular cause>"; one already rendered elsewhere in the tree is not repeated.
//
// Why: the outermost message of a wrapped error often says nothing ("request failed"); the turn's
// error record must carry the whole causal story.
func ErrorChain(err error) string {
	if err == nil {
		return "<nil>"
	}
	r := chainRenderer{onPath: map[any]bool{}, seen: map[any]bool{}}
	return r.render(err, 0)
}

type chainRenderer struct {
	onPath map[any]bool
	seen   map[any]bool
}

func (r *chainRenderer) render(err error, depth int) string {
	if depth >= errorChainDepthMax {
		return "<cause chain too deep>"
	}
	key, comparable := errorKey(err)
	if comparable {
		if r.onPath[key] {
			return "<circular cause>"
		}
		r.onPath[key] = true
		defer delete(r.onPath, key)
		r.seen[key] = true
	}
	message := err.Error()
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		cause := u.Unwrap()
		if cause == nil {
			return message
		}
		if r.cycles(cause) {
			// An error that is (or leads back to) its own cause: say so after its message, never
			// in its place (replacing the repeated text would drop the outer message).
			return message + ": <circular cause>"
		}
		causeText := cause.Error()
		rest := r.render(cause, depth+1)
		if causeText != "" && strings.Contains(message, causeText) {
			// The message already tells the cause (fmt.Errorf with %w anywhere in it): put the
			// cause's own rendering, which may say more, in its place.
			return strings.Replace(message, causeText, rest, 1)
		}
		return message + ": " + rest
	case interface{ Unwrap() []error }:
		// errors.Join says nothing of its own: render every cause. A custom multi-wrapper
		// (fmt.Errorf with several %w) already names its causes, so only causes that have
		// something more to say (deeper chains) are added.
		all := u.Unwrap()
		plainJoin := ownMessage(message, all) == ""
		var parts []string
		for _, c := range all {
			if c == nil || r.alreadyRendered(c) {
				continue
			}
			text := r.render(c, depth+1)
			if plainJoin || text != c.Error() {
				parts = append(parts, text)
			}
		}
		switch {
		case len(parts) == 0:
			return message
		case plainJoin:
			return "[" + strings.Join(parts, "; ") + "]"
		default:
			return message + " [" + strings.Join(parts, "; ") + "]"
		}
	}
	return message
}

// cycles reports whether c is on the current path: rendering it would loop.
func (r *chainRenderer) cycles(c error) bool {
	key, comparable := errorKey(c)
	return comparable && r.onPath[key]
}

// alreadyRendered reports whether c appeared earlier in the tree but not on the current path
// (a repeat, not a cycle), so a shared cause is printed once.
func (r *chainRenderer) alreadyRendered(c error) bool {
	key, comparable := errorKey(c)
	return comparable && r.seen[key] && !r.onPath[key]
}

// errorKey gives a map key for an error when its dynamic type is comparable.
func errorKey(err error) (any, bool) {
	if !reflect.TypeOf(err).Comparable() {
		return nil, false
	}
	return err, true
}

// ownMessage is what an error says beyond its causes' messages: fmt.Errorf("x: %w", c) says
// "x: <c>", of which only "x" is its own. errors.Join says nothing of its own.
func ownMessage(message string, causes []error) string {
	own := message
	var texts []string
	for _, c := range causes {
		if c != nil {
			texts = append(texts, c.Error())
		}
	}
	if len(texts) == 0 {
		return own
	}
	if own == strings.Join(texts, "\n") {
		return ""
	}
	if len(texts) == 1 && strings.HasSuffix(own, texts[0]) {
		own = strings.TrimSuffix(own, texts[0])
	} else if len(texts) > 1 {
		return own
	}
	return strings.TrimRight(strings.TrimSpace(own), ":;,")
}
