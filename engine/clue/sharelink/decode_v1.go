package sharelink

import (
	"bytes"
	"encoding/base64"
)

func decodeV1(body string) (State, error) {
	s := State{Version: 1, Selected: NoSelection, Models: DigitsModels}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return s, fail("it is damaged (it is not URL-safe base64)")
	}
	payload, err := inflate(bytes.NewReader(raw), payloadLength)
	if err != nil {
		return s, fail("it is damaged (%s)", inflateFault(err))
	}
	if len(payload) != payloadLength {
		return s, fail("it is damaged: %d bytes where a v1 link holds %d", len(payload), payloadLength)
	}
	if string(payload[:2]) != "DC" || payload[2] != 1 {
		return s, fail("it is damaged (bad header)")
	}
	r := reader{b: payload[3:]}
	flags := r.common(&s)
	s.Image = bytes.Clone(r.next(Pixels))
	if err := check(&s, flags); err != nil {
		return s, err
	}
	return s, nil
}
