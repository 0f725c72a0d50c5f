package task

// Reverse returns s reversed, rune by rune.
func Reverse(s string) string {
	return s
}
