package weather

// answerCancelled is what the forecast tool answers when its step is cancelled mid-lookup: the
// cancellation, so the harness records an error result rather than a forecast it never got.
func answerCancelled(city string, err error) (string, error) {
	return "", err
}
