package permission

import (
	"strings"
	"unicode"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission/urlnorm"
)

// subjectMatchers returns how rules match the subject of a network or
// other tool: restrict (deny and ask rules) and allow. For a URL subject
// (kind.Network, or any subject with "://") the normalised URL is matched
// (urlnorm: case, default port, trailing dot, user information, IDNA,
// white space), so another spelling of a denied URL is denied too; deny
// and ask rules also match the subject as written, and allow rules match
// nothing when the URL cannot be normalised (fail closed: it asks).
func subjectMatchers(req Request) (restrict, allow func(Rule) bool) {
	raw := req.Command
	if req.Kind != kind.Network && !strings.Contains(raw, "://") {
		m := func(r Rule) bool { return matchCommand(r.Pattern, raw) }
		return m, m
	}
	trimmed := strings.TrimFunc(raw, unicode.IsSpace)
	norm, err := urlnorm.Normalize(raw)
	if err != nil {
		if !strings.Contains(raw, "://") {
			norm = trimmed // a host name or another non-URL subject
		} else {
			return func(r Rule) bool { return matchCommand(r.Pattern, trimmed) }, func(Rule) bool { return false }
		}
	}
	restrict = func(r Rule) bool { return matchCommand(r.Pattern, norm) || matchCommand(r.Pattern, trimmed) }
	allow = func(r Rule) bool { return matchCommand(r.Pattern, norm) }
	return restrict, allow
}
