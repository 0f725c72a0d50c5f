package format

import "strings"

// StableSplit returns the length of the longest prefix of md made of
// complete markdown blocks: it ends after a blank line outside a code
// fence that is followed by more text. What comes before can be rendered
// and printed while the rest is still streaming. 0 means nothing is
// complete yet.
func StableSplit(md string) int {
	cut, pos := 0, 0
	inFence := false
	fence := ""
	blankSeen := false
	for pos < len(md) {
		end := strings.IndexByte(md[pos:], '\n')
		if end < 0 {
			break // the last line is still being written
		}
		line := md[pos : pos+end]
		next := pos + end + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case inFence:
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				inFence = false
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if blankSeen {
				cut = pos
			}
			inFence, fence = true, trimmed[:3]
			blankSeen = false
		case trimmed == "":
			blankSeen = true
		default:
			if blankSeen && !continuesBlock(line) {
				cut = pos
			}
			blankSeen = false
		}
		pos = next
	}
	return cut
}

// continuesBlock reports whether a line after a blank line may belong to
// the block before it (an indented list continuation or code).
func continuesBlock(line string) bool {
	return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")
}
