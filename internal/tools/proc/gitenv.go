package proc

import (
	"os"
	"strings"
)

// gitEnvDrop are variables removed from git's environment: they would
// point git at another repository, index or config, or run programs.
var gitEnvDrop = [...]string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_EXTERNAL_DIFF", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
	"GIT_EXEC_PATH", "GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_PROXY_COMMAND", "GIT_TRACE", "GIT_ATTR_SOURCE",
}

// GitEnviron returns the environment git runs with for the tools:
// os.Environ() without credentials (by pol, see ChildEnviron) and with
// git's program settings neutralised, without the variables that would
// point git at another repository, index or config or make it run
// programs, plus LC_ALL=C.
func GitEnviron(pol EnvPolicy) []string {
	base := ChildEnviron(os.Environ(), nil, pol)
	out := base[:0]
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, d := range gitEnvDrop {
			drop = drop || sameEnvName(name, d)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, "LC_ALL=C")
}
