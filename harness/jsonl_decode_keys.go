package harness

// memberKey names one key of the harness's objects: the member loops of the payload readers
// switch on it, a small integer, and a keySet marks it seen with one bit (where a list of the keys
// read so far was searched at every key).
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

// keyOf is the memberKey of a key's exact text (encoding/json would match another letter case too:
// that is left to it, as keyInvalid).
func keyOf(key string) memberKey {
	switch key {
	case "seq":
		return keySeq
	case "type":
		return keyType
	case "time":
		return keyTime
	case "data":
		return keyData
	case "message":
		return keyMessage
	case "id":
		return keyID
	case "text":
		return keyText
	case "lane":
		return keyLane
	case "kind":
		return keyKind
	case "messageId":
		return keyMessageID
	case "turn":
		return keyTurn
	case "step":
		return keyStep
	case "reason":
		return keyReason
	case "error":
		return keyError
	case "chunk":
		return keyChunk
	case "callId":
		return keyCallID
	case "name":
		return keyName
	case "arguments":
		return keyArguments
	case "finish":
		return keyFinish
	case "blocks":
		return keyBlocks
	case "isError":
		return keyIsError
	case "content":
		return keyContent
	case "code":
		return keyCode
	case "retryId":
		return keyRetryID
	case "provider":
		return keyProvider
	case "mode":
		return keyMode
	case "policyKey":
		return keyPolicyKey
	case "retry":
		return keyRetry
	case "maxRetries":
		return keyMaxRetries
	case "delayMs":
		return keyDelayMs
	case "failure":
		return keyFailure
	case "status":
		return keyStatus
	case "providerRetryAfterMs":
		return keyProviderRetryAfterMs
	case "requestId":
		return keyRequestID
	}
	return keyInvalid
}

// member reads the next member's key of an object whose opening brace is read, `"key":` (after a
// comma unless it is the first, which an empty seen tells), with the spacing after the colon, and
// adds it to seen; at the closing brace it reads that and answers keyEnd. A key is taken only as
// plain bytes, without escapes, so that it matches exactly; an unknown or repeated key, or bad
// syntax, is keyInvalid. The payload readers come here only for a spelling not the encoder's
// (p.lit reads the encoder's), so member is written to be plain rather than fast.
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
	start := i + 1
	i = skipPlain(b, start)
	if i >= len(b) || b[i] != '"' { // an escape, a control byte or a non-ASCII byte
		return keyInvalid
	}
	k := keyOf(b[start:i])
	if k == keyInvalid || *seen&(1<<k) != 0 {
		return keyInvalid
	}
	*seen |= 1 << k
	i++
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

// fields reads an object's members the general way, for a spelling that is not the encoder's own
// (any order, any spacing, each known key once): it hands each key to field, which reads that
// key's value and reports whether it could. A key field does not know (it answers false without
// reading), a repeated or unknown key, or bad syntax refuses the object. Only this path pays a
// call per key: every payload reader first reads the encoder's spelling straight (p.lit).
func (p *eventParser) fields(field func(key memberKey) bool) bool {
	if !p.open() {
		return false
	}
	var seen keySet
	for {
		key := p.member(&seen)
		if key == keyEnd {
			return true
		}
		if !field(key) {
			return false
		}
	}
}
