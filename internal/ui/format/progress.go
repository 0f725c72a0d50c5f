package format

import (
	"fmt"
	"strconv"
)

// Progress is the line front ends show for a running tool's progress:
// "mcp__srv__tool: 3/10 indexing" (no total: "3"; no message: the numbers).
func Progress(tool, message string, progress, total float64) string {
	n := strconv.FormatFloat(progress, 'f', -1, 64)
	if total > 0 {
		n += "/" + strconv.FormatFloat(total, 'f', -1, 64)
	}
	if message == "" {
		return fmt.Sprintf("%s: %s", tool, n)
	}
	return fmt.Sprintf("%s: %s %s", tool, n, message)
}
