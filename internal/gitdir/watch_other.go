//go:build !linux

package gitdir

// watcher is inotify's on Linux; elsewhere Tree stats every folder.
type watcher struct{}

func startWatcher(*Tree)                                 {}
func (t *Tree) watch(string)                             {}
func (t *Tree) updateWatched() (added []string, ok bool) { return nil, false }
