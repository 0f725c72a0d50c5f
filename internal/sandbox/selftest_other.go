//go:build !linux

package sandbox

// classNeeds: on macOS sandbox-exec provides every layer the suite
// checks there.
func classNeeds(string, Caps) string { return "" }

// platformAttempts on other systems: the Unix socket, process, terminal
// and IPC attempts use Linux's kernel interfaces.
func platformAttempts() []attempt {
	na := func(class, name string) attempt {
		return attempt{class, name, func(*suite) (bool, string, string) {
			return false, "", "the escape suite checks this on Linux only"
		}}
	}
	return []attempt{
		na(ClassSockets, "connect to a host Unix socket"),
		na(ClassProcesses, "a detached process outlives its command"),
		na(ClassTerminals, "write to a terminal of the user's"),
		na(ClassIPC, "see the user's System V shared memory"),
	}
}
