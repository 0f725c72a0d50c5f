package trust

import (
	"fmt"
	"sort"
	"strings"
)

// Status is an item's state against the approvals.
type Status string

// The states of an item.
const (
	StatusApproved Status = "approved"
	StatusNew      Status = "new"
	StatusChanged  Status = "changed" // an item of this Kind and Name was approved with other content
)

// Change is an item waiting for the user: new or changed since the last
// approval.
type Change struct {
	Item
	Status Status
}

// StatusOf returns it's status against a.
func StatusOf(it Item, a Approvals) Status {
	switch {
	case a.Approved(it):
		return StatusApproved
	case a.Known(it):
		return StatusChanged
	}
	return StatusNew
}

// Review returns the items of items that a does not approve, new or
// changed, in the order given. Items with the same digest are listed once.
func Review(items []Item, a Approvals) []Change {
	var out []Change
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Digest] {
			continue
		}
		seen[it.Digest] = true
		if st := StatusOf(it, a); st != StatusApproved {
			out = append(out, Change{Item: it, Status: st})
		}
	}
	return out
}

// ReviewCommand is what the user runs to review items.
const ReviewCommand = "aidex trust --review"

// Summary is one line about pending changes, for a headless run's stderr:
// "N new or changed items of this trusted project are not approved and are
// left out (KIND NAME, ...): review them with `aidex trust --review`".
// "" when changes is empty.
func Summary(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	names := make([]string, 0, len(changes))
	for _, c := range changes {
		names = append(names, c.Key())
	}
	sort.Strings(names)
	const max = 5
	list := strings.Join(names, ", ")
	if len(names) > max {
		list = strings.Join(names[:max], ", ") + fmt.Sprintf(", and %d more", len(names)-max)
	}
	noun := "items"
	if len(changes) == 1 {
		noun = "item"
	}
	return fmt.Sprintf("%d new or changed %s of this trusted project not approved, left out until you approve them (%s): review with `%s`",
		len(changes), noun, list, ReviewCommand)
}
