package mcp

import (
	"errors"
	"time"
)

// KillForTest kills a stdio server's process group, as a crash would.
func KillForTest(m *Manager, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	group, sess := s.group, s.sess
	s.mu.Unlock()
	killGroup(group)
	if sess != nil {
		_ = sess.Wait()
	}
	// Until the manager's watch has noticed: the server stopped before the
	// next call, as it does between a user's turns.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		noticed := s.dead || s.sess != sess
		s.mu.Unlock()
		if noticed {
			return nil
		}
	}
	return errors.New("the manager did not notice the server's exit within 10 s")
}
