package eventjson

import "strings"

// key is one key of the log's objects, as a small number: each object's reader switches on the
// keys it reads, and a set of keys read is a bitmask.
type key uint8

// The keys of the log's objects, each once, whatever objects it is a key of.
const (
	keySeq key = iota
	keyType
	keyTime
	keyData
	keyMessage
	keyId
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
)

// keyNames are the keys as the log spells them.
var keyNames = [...]string{
	keySeq:                  "seq",
	keyType:                 "type",
	keyTime:                 "time",
	keyData:                 "data",
	keyMessage:              "message",
	keyId:                   "id",
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

// keys are the keys of one type of object, in the order the encoder writes them.
type keys struct {
	list []key
	// quoted are the keys as they begin a member, `"name":`, for a comparison of the whole.
	quoted []string
}

func newKeys(list ...key) keys {
	k := keys{list: list}
	for _, each := range list {
		k.quoted = append(k.quoted, `"`+keyNames[each]+`":`)
	}
	return k
}

// all is the set of every key of k, one bit a key, by its place in k.
func (k *keys) all() uint32 { return 1<<len(k.list) - 1 }

// place is the place in k of the key spelled name, or -1.
func (k *keys) place(name string) int {
	for i, each := range k.list {
		if keyNames[each] == name {
			return i
		}
	}
	return -1
}

// match is the place in k of the key rest begins with, as the encoder writes it (`"name":`),
// looked for among the keys from after on; -1 if none.
func (k *keys) match(rest string, after int) int {
	for i := after; i < len(k.quoted); i++ {
		// The key's first letter first: most keys of an object differ in it.
		if q := k.quoted[i]; len(rest) > 1 && rest[1] == q[1] && strings.HasPrefix(rest, q) {
			return i
		}
	}
	return -1
}
