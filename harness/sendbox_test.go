package harness

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A send's shared id and inbox/push box are exactly what it made before ("m" and the message's
// number, its lane and kind), for every lane and kind, inside the shared range and out of it,
// however many agents ask at once (-race).
func TestSendBoxesAreTheSendPayloads(t *testing.T) {
	lanes := []Lane{LaneNextTurn, LaneNextStep}
	kinds := []MessageKind{KindFollowup, KindSteer, KindInject}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for n := -1; n <= sendBoxMessages+2; n++ {
				id := "m" + strconv.Itoa(n)
				assert.Equal(t, id, messageID(n))
				for _, lane := range lanes {
					for _, kind := range kinds {
						assert.Equal(t, EventData(InboxPush{Lane: lane, Kind: kind, MessageID: id}), inboxPushData(lane, kind, n))
					}
				}
			}
		})
	}
	wg.Wait()
}
