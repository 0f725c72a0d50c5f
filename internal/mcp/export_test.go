package mcp

// KillForTest kills a stdio server's process group, as a crash would.
func KillForTest(m *Manager, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	cmd, sess := s.proc, s.sess
	s.mu.Unlock()
	killGroup(cmd)
	if sess != nil {
		_ = sess.Wait()
	}
	return nil
}
