package filestore_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnsim/turnsim/harness"
	"github.com/turnsim/turnsim/harness/filestore"
)

// A session whose store is a file: every event is on disk, synced, before Append returns, and a
// reopen reads the log back.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "filestore-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "session.jsonl")

	store, _, err := filestore.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	session := harness.NewSession(&fakeClock{}, store)
	session.Append(harness.TurnStart{Turn: 1})
	store.Close()

	os.WriteFile(path, []byte(readAll(path)+`{"seq":2,"type":"turn/e`), 0o644) // a crash mid-write
	store, opened, err := filestore.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	fmt.Println(len(opened.Events), "event; torn line", opened.Torn.Line, "cut:", opened.Torn.Text)
	// Output: 1 event; torn line 2 cut: {"seq":2,"type":"turn/e
}

func readAll(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
