package harness

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func textChunk(s string) Chunk { return Chunk{Kind: ChunkText, Text: s} }
func callChunk(id string) Chunk {
	return Chunk{Kind: ChunkToolCall, CallID: id, Name: "t", Arguments: "{}"}
}
func finishChunk(f Finish) Chunk { return Chunk{Kind: ChunkFinish, Finish: f} }

// assemble feeds chunks in order and returns the first Add error, or Finish's outcome.
func assemble(chunks ...Chunk) (AssembledMessage, Finish, error) {
	var a BlockAssembler
	for _, c := range chunks {
		if err := a.Add(c); err != nil {
			return AssembledMessage{}, "", err
		}
	}
	return a.Finish()
}

func TestBlockAssemblerJoinsTextAndKeepsCallsInOrder(t *testing.T) {
	msg, finish, err := assemble(textChunk("a"), textChunk("b"), callChunk("c1"), textChunk("x"), callChunk("c2"), finishChunk(FinishCompleted))
	require.NoError(t, err)
	assert.Equal(t, FinishToolCalls, finish, "any call makes the step tool-calls")
	assert.Equal(t, []Block{
		{Type: BlockText, Text: "ab"},
		{Type: BlockToolCall, CallID: "c1", Name: "t", Arguments: "{}"},
		{Type: BlockText, Text: "x"},
		{Type: BlockToolCall, CallID: "c2", Name: "t", Arguments: "{}"},
	}, msg.Blocks)

	_, finish, err = assemble(callChunk("c1"), finishChunk(FinishMaxTokens))
	require.NoError(t, err)
	assert.Equal(t, FinishMaxTokens, finish, "max-tokens wins over tool calls")

	_, finish, err = assemble(textChunk("a"), finishChunk(FinishToolCalls))
	require.NoError(t, err)
	assert.Equal(t, FinishCompleted, finish, "no call: completed, whatever the finish chunk said")
}

func TestBlockAssemblerRefusesBrokenStreams(t *testing.T) {
	_, _, err := assemble(textChunk("a"))
	assert.Equal(t, CodeTransport, failureCode(err), "no finish")
	_, _, err = assemble(finishChunk(FinishCompleted))
	assert.Equal(t, CodeEmptyResponse, failureCode(err), "no blocks")
	_, _, err = assemble(finishChunk(FinishCompleted), textChunk("late"))
	assert.ErrorContains(t, err, "chunk after the finish")
	_, _, err = assemble(Chunk{Kind: ChunkToolCall, Name: "t"})
	assert.ErrorContains(t, err, "without a callId or name")
	_, _, err = assemble(finishChunk("stopped"))
	assert.ErrorContains(t, err, "unknown finish")
	_, _, err = assemble(Chunk{Kind: "image"})
	assert.ErrorContains(t, err, "unknown chunk kind")
}

// A repeated callId is refused however many calls came before it: the assembler scans its blocks
// while they are few and keeps a set past callIDScanMax, and both must find every earlier id.
func TestBlockAssemblerRefusesARepeatedCallIDAtAnyLength(t *testing.T) {
	for _, n := range []int{1, 2, callIDScanMax - 1, callIDScanMax, callIDScanMax + 1, 3 * callIDScanMax} {
		for _, repeat := range []int{0, n / 2, n - 1} {
			chunks := []Chunk{textChunk("thinking")}
			for i := range n {
				chunks = append(chunks, callChunk("c"+strconv.Itoa(i)))
			}
			chunks = append(chunks, textChunk("more"), callChunk("c"+strconv.Itoa(repeat)))
			_, _, err := assemble(chunks...)
			assert.ErrorContains(t, err, "appears twice", "%d calls, repeating call %d", n, repeat)
		}
		chunks := []Chunk{}
		for i := range n {
			chunks = append(chunks, callChunk("c"+strconv.Itoa(i)))
		}
		msg, finish, err := assemble(append(chunks, callChunk("new"), finishChunk(FinishToolCalls))...)
		require.NoError(t, err, "%d distinct calls and one more", n)
		assert.Equal(t, FinishToolCalls, finish)
		assert.Len(t, msg.ToolCalls(), n+1)
	}
}

func failureCode(err error) string {
	f, _ := FailureOf(err)
	return f.Code
}
