package app

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
)

// ResumeModel brings the service back to the provider and model resumed
// session sess last used (`-c`, `-r ID`), unless the command line chose
// them (--model, --provider: flags win) or the service is on them
// already. It returns a line naming the model the session continues on
// ("continuing on PROVIDER/MODEL, the session's last model"), or "" when
// nothing changed. A stored model that cannot be used any more (a
// provider removed from the config, a key no longer set) keeps the
// current one and says so in the line. Errors: the store's.
func (s *Service) ResumeModel(ctx context.Context, sess *agent.Conversation) (string, error) {
	s.mu.Lock()
	_, flagProvider := s.opts.Flags["provider"]
	_, flagModel := s.opts.Flags["model"]
	s.mu.Unlock()
	if flagProvider || flagModel {
		return "", nil
	}
	sum, err := s.store.Info(ctx, sess.ID)
	if err != nil {
		return "", err
	}
	rt := s.Runtime()
	if sum.Provider == "" || sum.Model == "" || sum.Provider == rt.Provider.Name && sum.Model == rt.Model {
		return "", nil
	}
	if _, err := s.Reload(ctx, map[string]string{"provider": sum.Provider, "model": sum.Model}); err != nil {
		return fmt.Sprintf("the session was last on %s/%s, which cannot be used now (%v): continuing on %s/%s",
			sum.Provider, sum.Model, err, rt.Provider.Name, rt.Model), nil
	}
	return fmt.Sprintf("continuing on %s/%s, the session's last model", sum.Provider, sum.Model), nil
}
