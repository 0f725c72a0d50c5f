//go:build !linux

package proc

// quickRepoGitEnviron knows the config files git reads only on Linux
// (see gitquick_linux.go): elsewhere RepoGitEnviron always asks git.
func quickRepoGitEnviron(bin, dir string, environ []string) ([]string, bool) { return nil, false }
