package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
)

// isStream reports whether a reply is a stream of server-sent events.
func isStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// eventEnd returns the length of the first whole event in b (through the
// blank line that ends it), or -1 when b holds none yet.
func eventEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		// A line ends at i; a blank line follows when the next line is
		// empty (\n or \r\n).
		switch {
		case i+1 < len(b) && b[i+1] == '\n':
			return i + 2
		case i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n':
			return i + 3
		}
	}
	return -1
}

// sseEvent is one server-sent event: its bytes as received, and its name
// and data as parsed.
type sseEvent struct {
	raw  []byte
	name string
	data []byte
	// obj is data decoded, when it is a JSON object.
	obj map[string]any
	// changed marks an event a fault rewrote: it is encoded anew.
	changed bool
}

// eventReader reads server-sent events one at a time.
type eventReader struct {
	r   *bufio.Reader
	buf []byte
}

func newEventReader(r io.Reader) *eventReader {
	return &eventReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next event. At the end of the stream it returns the
// trailing bytes that end no event (as an event with only raw set) and
// then io.EOF; a failed read returns its error after what was read.
func (er *eventReader) next() (*sseEvent, error) {
	for {
		if n := eventEnd(er.buf); n >= 0 {
			raw := bytes.Clone(er.buf[:n])
			er.buf = er.buf[n:]
			return parseEvent(raw), nil
		}
		line, err := er.r.ReadSlice('\n')
		er.buf = append(er.buf, line...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(er.buf) > 0 {
				raw := er.buf
				er.buf = nil
				return &sseEvent{raw: raw}, nil
			}
			return nil, err
		}
	}
}

// rest is what the reader has not returned yet.
func (er *eventReader) rest() io.Reader {
	return io.MultiReader(bytes.NewReader(er.buf), er.r)
}

// parseEvent reads an event's name and data lines.
func parseEvent(raw []byte) *sseEvent {
	e := &sseEvent{raw: raw}
	var data [][]byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			e.name = string(value)
		case "data":
			data = append(data, value)
		}
	}
	e.data = bytes.Join(data, []byte("\n"))
	if len(e.data) > 0 && e.data[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(e.data))
		dec.UseNumber()
		var obj map[string]any
		if dec.Decode(&obj) == nil {
			e.obj = obj
		}
	}
	return e
}

// bytes returns the event as it is to be sent: as received, or encoded
// anew when a fault changed it.
func (e *sseEvent) bytes() []byte {
	if !e.changed {
		return e.raw
	}
	var b bytes.Buffer
	if e.name != "" {
		b.WriteString("event: " + e.name + "\n")
	}
	b.WriteString("data: ")
	b.Write(encodeJSON(e.obj))
	b.WriteString("\n\n")
	return b.Bytes()
}

// encodeJSON encodes v without HTML escaping, as the providers send text.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("proxy: unencodable JSON: " + err.Error()) // decoded JSON re-encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// contentEvent reports whether an event carries the answer's content: a
// content block's delta (Anthropic), or a chunk whose delta holds text or
// a tool call (OpenAI).
func (e *sseEvent) contentEvent() bool {
	if e.obj == nil {
		return false
	}
	if t, _ := e.obj["type"].(string); t == "content_block_delta" {
		return true
	}
	choices, _ := e.obj["choices"].([]any)
	for _, c := range choices {
		cm, _ := c.(map[string]any)
		delta, _ := cm["delta"].(map[string]any)
		for k, v := range delta {
			if k == "role" || v == nil {
				continue
			}
			if s, ok := v.(string); ok && s == "" {
				continue
			}
			return true
		}
	}
	return false
}
