// Package eventjson reads and writes the session log's JSON Lines form: one harness.Event a
// line, {"seq","type","time","data"}, the payload's type chosen by "type".
//
// The bytes are encoding/json's: Append and Write write exactly what json.Marshal writes for each
// event, and Decode and Read read any line exactly as json.Unmarshal reads it into a
// harness.Event (Event.UnmarshalJSON), the same event or the same error. They are written by hand
// because a simulator checks thousands of logs a second and encoding/json walks every field by
// reflection; the libraries measured in its place (goccy/go-json, segmentio/encoding, encoding/json
// under GOEXPERIMENT=jsonv2) cost a schedule far more than this package does. Anything the hand
// code does not read or write exactly as encoding/json would (another key order or letter case,
// a repeated or unknown key, null, a payload type the harness does not define, a NaN) is left
// to encoding/json itself, so its answer is encoding/json's by construction; the fuzz targets in
// the tests hold the rest to it.
//
// Map of the package:
//   - encode.go: Append and Write, and the writer of each payload type;
//   - encode_text.go: strings and floats as json.Marshal spells them;
//   - decode.go: Decode and Read, a log split into lines, LineError;
//   - parse.go: the reader of one line, which reads what the encoder writes and leaves any other
//     spelling to encoding/json;
//   - parse_values.go: its strings, numbers and booleans;
//   - parse_payloads.go: the reader of each payload type, the mirror of its writer.
package eventjson
