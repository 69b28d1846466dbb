package node

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// decodeAdminBody decodes one JSON object of an admin request into v,
// refusing unknown fields, trailing data and bodies over maxAdminBody.
// On failure it has answered the request (400 or 413, the message naming
// example, a body to send, or fields, the fields v has) and returns false.
func decodeAdminBody(w http.ResponseWriter, r *http.Request, v any, example, fields string) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, "body over %d bytes", maxAdminBody)
		case errors.Is(err, io.EOF):
			writeError(w, http.StatusBadRequest, "empty body: want a JSON object such as %s", example)
		case strings.Contains(err.Error(), "unknown field"):
			writeError(w, http.StatusBadRequest, "invalid JSON body: %v (%s)", err, fields)
		default:
			writeError(w, http.StatusBadRequest, "invalid JSON body: %v", err)
		}
		return false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, "invalid JSON body: more after the object")
		return false
	}
	return true
}
