package harness

import "strings"

// memberKey names one key of the harness's objects: the payload readers switch on it (a small
// integer, where a switch on the key's text compared strings case by case), and a keySet marks it
// seen with one bit (where a list of the keys read so far was searched at every key).
type memberKey uint8

const (
	keyInvalid memberKey = iota // a key the fast path does not read, a repeated one, or bad syntax
	keyEnd                      // the object's closing brace: no key
	keySeq
	keyType
	keyTime
	keyData
	keyMessage
	keyID
	keyText
	keyLane
	keyKind
	keyMessageID
	keyTurn
	keyStep
	keyReason
	keyError
	keyChunk
	keyCallID
	keyName
	keyArguments
	keyFinish
	keyBlocks
	keyIsError
	keyContent
	keyCode
	keyRetryID
	keyProvider
	keyMode
	keyPolicyKey
	keyRetry
	keyMaxRetries
	keyDelayMs
	keyFailure
	keyStatus
	keyProviderRetryAfterMs
	keyRequestID
	keyCount // not a key: how many memberKeys there are, which a keySet must hold
)

// keySet holds the keys of one object read so far, one bit a memberKey.
type keySet uint64

// The keySet has a bit for every memberKey.
var _ [64 - keyCount]struct{}

// has reports whether every key of want is in s.
func (s keySet) has(want keySet) bool { return s&want == want }

// keyNames is each key's text.
var keyNames = [keyCount]string{
	keySeq:                  "seq",
	keyType:                 "type",
	keyTime:                 "time",
	keyData:                 "data",
	keyMessage:              "message",
	keyID:                   "id",
	keyText:                 "text",
	keyLane:                 "lane",
	keyKind:                 "kind",
	keyMessageID:            "messageId",
	keyTurn:                 "turn",
	keyStep:                 "step",
	keyReason:               "reason",
	keyError:                "error",
	keyChunk:                "chunk",
	keyCallID:               "callId",
	keyName:                 "name",
	keyArguments:            "arguments",
	keyFinish:               "finish",
	keyBlocks:               "blocks",
	keyIsError:              "isError",
	keyContent:              "content",
	keyCode:                 "code",
	keyRetryID:              "retryId",
	keyProvider:             "provider",
	keyMode:                 "mode",
	keyPolicyKey:            "policyKey",
	keyRetry:                "retry",
	keyMaxRetries:           "maxRetries",
	keyDelayMs:              "delayMs",
	keyFailure:              "failure",
	keyStatus:               "status",
	keyProviderRetryAfterMs: "providerRetryAfterMs",
	keyRequestID:            "requestId",
}

// member reads the next member's key of an object whose opening brace is read, `"key":` (after a
// comma unless it is the first, which an empty seen tells), with the spacing after the colon, and
// adds it to seen; at the closing brace it reads that and answers keyEnd. A key is taken only as
// plain bytes, without escapes, so that it matches exactly; an unknown or repeated key, or bad
// syntax, is keyInvalid. The encoder writes no spacing, so the checks for it come after the byte
// it usually finds.
func (p *eventParser) member(seen *keySet) memberKey {
	b, i := p.b, p.i
	if i < len(b) && b[i] <= ' ' {
		i = skipSpace(b, i)
	}
	if i >= len(b) {
		return keyInvalid
	}
	switch b[i] {
	case '"':
		if *seen != 0 { // a second key without its comma
			return keyInvalid
		}
	case ',':
		if *seen == 0 { // a comma before the first key
			return keyInvalid
		}
		i++
		if i < len(b) && b[i] <= ' ' {
			i = skipSpace(b, i)
		}
		if i >= len(b) || b[i] != '"' {
			return keyInvalid
		}
	case '}':
		p.i = i + 1
		return keyEnd
	default:
		return keyInvalid
	}
	// The key: a switch on its first byte, then comparisons with the few keys that begin with it,
	// most used first, each compiled to a load or two (the key's bytes are not scanned one at a
	// time, nor its text compared twice). Only the exact text, followed by its closing quote,
	// matches: encoding/json would match another letter case too, which is left to it.
	k, key := keyInvalid, b[i+1:]
	if key == "" {
		return keyInvalid
	}
	switch key[0] {
	case 'a':
		switch {
		case strings.HasPrefix(key, `arguments"`):
			k = keyArguments
		}
	case 'b':
		switch {
		case strings.HasPrefix(key, `blocks"`):
			k = keyBlocks
		}
	case 'c':
		switch {
		case strings.HasPrefix(key, `callId"`):
			k = keyCallID
		case strings.HasPrefix(key, `chunk"`):
			k = keyChunk
		case strings.HasPrefix(key, `code"`):
			k = keyCode
		case strings.HasPrefix(key, `content"`):
			k = keyContent
		}
	case 'd':
		switch {
		case strings.HasPrefix(key, `data"`):
			k = keyData
		case strings.HasPrefix(key, `delayMs"`):
			k = keyDelayMs
		}
	case 'e':
		switch {
		case strings.HasPrefix(key, `error"`):
			k = keyError
		}
	case 'f':
		switch {
		case strings.HasPrefix(key, `finish"`):
			k = keyFinish
		case strings.HasPrefix(key, `failure"`):
			k = keyFailure
		}
	case 'i':
		switch {
		case strings.HasPrefix(key, `id"`):
			k = keyID
		case strings.HasPrefix(key, `isError"`):
			k = keyIsError
		}
	case 'k':
		switch {
		case strings.HasPrefix(key, `kind"`):
			k = keyKind
		}
	case 'l':
		switch {
		case strings.HasPrefix(key, `lane"`):
			k = keyLane
		}
	case 'm':
		switch {
		case strings.HasPrefix(key, `message"`):
			k = keyMessage
		case strings.HasPrefix(key, `messageId"`):
			k = keyMessageID
		case strings.HasPrefix(key, `mode"`):
			k = keyMode
		case strings.HasPrefix(key, `maxRetries"`):
			k = keyMaxRetries
		}
	case 'n':
		switch {
		case strings.HasPrefix(key, `name"`):
			k = keyName
		}
	case 'p':
		switch {
		case strings.HasPrefix(key, `provider"`):
			k = keyProvider
		case strings.HasPrefix(key, `policyKey"`):
			k = keyPolicyKey
		case strings.HasPrefix(key, `providerRetryAfterMs"`):
			k = keyProviderRetryAfterMs
		}
	case 'r':
		switch {
		case strings.HasPrefix(key, `reason"`):
			k = keyReason
		case strings.HasPrefix(key, `retryId"`):
			k = keyRetryID
		case strings.HasPrefix(key, `retry"`):
			k = keyRetry
		case strings.HasPrefix(key, `requestId"`):
			k = keyRequestID
		}
	case 's':
		switch {
		case strings.HasPrefix(key, `step"`):
			k = keyStep
		case strings.HasPrefix(key, `seq"`):
			k = keySeq
		case strings.HasPrefix(key, `status"`):
			k = keyStatus
		}
	case 't':
		switch {
		case strings.HasPrefix(key, `turn"`):
			k = keyTurn
		case strings.HasPrefix(key, `type"`):
			k = keyType
		case strings.HasPrefix(key, `time"`):
			k = keyTime
		case strings.HasPrefix(key, `text"`):
			k = keyText
		}
	}
	if k == keyInvalid || *seen&(1<<k) != 0 {
		return keyInvalid
	}
	*seen |= 1 << k
	i += 1 + len(keyNames[k]) + 1 // the quotes and the text between
	if i < len(b) && b[i] == ':' {
		i++
	} else {
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return keyInvalid
		}
		i++
	}
	if i < len(b) && b[i] <= ' ' {
		i = skipSpace(b, i)
	}
	p.i = i
	return k
}
