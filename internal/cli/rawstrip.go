package cli

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/zelvior/aidex/internal/app"
)

// rawText is one JSON string literal of a raw response that carries the
// model's text: its byte span in the raw response and its decoded value.
type rawText struct {
	start, end int
	text       []rune
}

// stripRawMarkers removes agent mode's finish markers from a raw provider
// response (a JSON body, or the array of a stream's chunks). A streamed
// marker may be split across chunks ("%%DON" then "E%%"), so the text
// strings (the values of "content", "text" and "delta") are read as one
// text in order, the markers found in it, and their characters cut from
// the strings that hold them; everything else is left byte for byte.
func stripRawMarkers(raw []byte) []byte {
	texts := rawTexts(raw)
	var all []rune
	owner := []int{} // owner[i]: the rawText holding rune i of all
	for i, t := range texts {
		all = append(all, t.text...)
		for range t.text {
			owner = append(owner, i)
		}
	}
	cutRunes := map[int]bool{}
	joined := string(all)
	for _, m := range app.FinishMarkers() {
		runesBefore, from := 0, 0
		for {
			i := strings.Index(joined[from:], m)
			if i < 0 {
				break
			}
			runesBefore += len([]rune(joined[from : from+i]))
			for k := range len([]rune(m)) {
				cutRunes[runesBefore+k] = true
			}
			runesBefore += len([]rune(m))
			from += i + len(m)
		}
	}
	if len(cutRunes) == 0 {
		return stripMarkers(raw) // markers outside the text strings
	}
	kept := make([][]rune, len(texts))
	changed := make([]bool, len(texts))
	for i, r := range all {
		if cutRunes[i] {
			changed[owner[i]] = true
			continue
		}
		kept[owner[i]] = append(kept[owner[i]], r)
	}
	var out bytes.Buffer
	last := 0
	for i, t := range texts {
		if !changed[i] {
			continue
		}
		out.Write(raw[last:t.start])
		out.Write(jsonString(string(kept[i])))
		last = t.end
	}
	out.Write(raw[last:])
	return stripMarkers(out.Bytes())
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// rawTexts finds the string values of the keys "content", "text" and
// "delta" in raw, in order.
func rawTexts(raw []byte) []rawText {
	var out []rawText
	key := ""
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return out
		}
		var s string
		if json.Unmarshal(raw[i:end], &s) != nil {
			return out
		}
		j := end
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j++
		}
		switch {
		case j < len(raw) && raw[j] == ':':
			key = s
		case key == "content" || key == "text" || key == "delta":
			out = append(out, rawText{start: i, end: end, text: []rune(s)})
			key = ""
		default:
			key = ""
		}
		i = end - 1
	}
	return out
}

// stringEnd returns the index just past the JSON string literal starting
// at raw[start] (a quote), or -1 when it does not end.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
