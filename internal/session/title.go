package session

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Retitle replaces session id's title with title (whitespace collapsed,
// cut to 80 runes), as long as the title is still the one its first
// prompt gave it (from, as AppendMessage made it) or empty: a better
// title written in the background never overwrites another. It leaves
// updated_at alone (a title is no change of the conversation) and
// reports whether it changed the title. Errors: an empty title; the
// database's.
func (s *Store) Retitle(ctx context.Context, id, from, title string) (bool, error) {
	title = makeTitle(title)
	if strings.TrimSpace(title) == "" {
		return false, fmt.Errorf("retitle session %s: the title is empty", id)
	}
	changed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ? AND (title = '' OR title = ?)`, title, id, makeTitle(from))
		if err != nil {
			return fmt.Errorf("retitle session %s: %w", id, err)
		}
		n, err := res.RowsAffected()
		changed = n > 0
		return err
	})
	return changed, err
}
