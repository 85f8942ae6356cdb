package harness

// LineBytesMax is the longest line, its newline included, a JSON Lines session log may hold:
// the log's reader (package eventjson) reads no longer one, so a store must write no longer one
// (filestore refuses it), and `simrun check` names a file that has one instead of misreading it.
// 64 MiB is thousands of times any event the harness writes; only a runaway tool result or
// message comes near it.
const LineBytesMax = 64 << 20
