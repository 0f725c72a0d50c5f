package task

// Clamp limits v to [lo, hi].
func Clamp(v, lo, hi int) int {
	if lo > hi {
		panic("bad range")
	}
	if v < lo {
		return lo
	}
	return v
}
