package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// coerceStrings returns args with every top-level number whose parameter
// the schema types as "string" turned into its decimal text ({"id": 1} →
// {"id": "1"}), as the tool registry does for its tools: models often
// send an id as a number. Anything else (a schema or arguments that do
// not decode, no such parameter) leaves args as they are, for the tool's
// own error.
func coerceStrings(schema, args json.RawMessage) json.RawMessage {
	if !bytes.Contains(args, []byte(":")) {
		return args
	}
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	changed := false
	for k, v := range m {
		p, ok := s.Properties[k]
		if !ok || p.Type != "string" || len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
			continue
		}
		var n json.Number
		if json.Unmarshal(v, &n) != nil {
			continue
		}
		text := n.String()
		if i, err := n.Int64(); err == nil {
			text = strconv.FormatInt(i, 10)
		}
		m[k], _ = json.Marshal(text)
		changed = true
	}
	if !changed {
		return args
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
