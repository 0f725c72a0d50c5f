package tools

// SetTestHookBeforeOpen sets the hook run between the resolution of a
// path and each file operation on it (nil clears it).
func SetTestHookBeforeOpen(h func(abs string)) { testHookBeforeOpen = h }
