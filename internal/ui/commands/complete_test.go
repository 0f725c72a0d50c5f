package commands

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A command typed in full is the first completion (the one a menu
// highlights), before the longer names it is a prefix of.
func TestCompleteExactNameFirst(t *testing.T) {
	tab := Default()
	var names []string
	for _, s := range tab.Complete("/mode") {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"/mode", "/model", "/models"}, names)
	names = nil
	for _, s := range tab.Complete("/model") {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"/model", "/models"}, names)
}
