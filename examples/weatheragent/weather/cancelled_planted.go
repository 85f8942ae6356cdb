//go:build planted

package weather

import "encoding/json"

// answerCancelled, planted defect (go test -tags planted): a cancelled lookup answers an empty
// forecast as if it had succeeded, for a city it never asked about. forecast-names-its-city
// catches it; the tests under the planted tag prove it, with a repro line and a shrunk schedule.
func answerCancelled(city string, err error) (string, error) {
	answer, _ := json.Marshal(Forecast{})
	return string(answer), nil
}
