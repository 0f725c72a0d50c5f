package catalog

import (
	"context"
	"fmt"
	"strings"
)

// Choice is the provider and model picked when the user configured none,
// with Reason, a one-line message the CLI prints to say why.
//
// Keyless is true when nothing better was found and the choice is the
// catalog's key-free provider, which works only when it can be reached:
// callers check that before promising a working setup.
type Choice struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Reason   string `json:"reason"`
	Keyless  bool   `json:"keyless,omitempty"`
}

// ChooseDefault picks a provider for a user who configured none: the first
// provider of the catalog's auto-detect list whose key APIKey finds through
// env; else the local provider (ollama) when probe reports that something
// answers on its base URL; else the key-free provider (pollinations).
//
// env looks up environment variables (nil: empty environment). probe checks
// a base URL and must return quickly (the caller sets a short timeout, e.g.
// 300 ms); nil skips the local check. ChooseDefault does no I/O itself.
func (c *Catalog) ChooseDefault(ctx context.Context, env func(string) string, probe func(ctx context.Context, baseURL string) bool) Choice {
	for _, name := range c.autoDetect {
		p, ok := c.Provider(name)
		if !ok {
			continue
		}
		if src := p.KeySource(env); src != "" {
			return Choice{
				Provider: p.Name,
				Model:    p.DefaultModel,
				Reason: fmt.Sprintf("using %s (%s): found %s; choose another with --provider or `aidex providers`",
					p.Name, p.DefaultModel, src),
			}
		}
	}
	hint := c.keyHint()
	if p, ok := c.Provider(c.localProvider); ok && probe != nil && ctx.Err() == nil && probe(ctx, p.BaseURL) {
		return Choice{
			Provider: p.Name,
			Model:    p.DefaultModel,
			Reason: fmt.Sprintf("no API key found: using %s at %s (local, model %s); %s",
				p.Name, p.BaseURL, p.DefaultModel, hint),
		}
	}
	p, _ := c.Provider(c.keylessProvider)
	return Choice{
		Provider: p.Name,
		Model:    p.DefaultModel,
		Reason:   fmt.Sprintf("no API key found: using %s (key-free, no signup); %s", p.Name, hint),
		Keyless:  true,
	}
}

// KeyVars returns the conventional key variables of the first n
// auto-detect providers ("OPENAI_API_KEY", ...), for first-run help.
func (c *Catalog) KeyVars(n int) []string {
	var vars []string
	for _, name := range c.autoDetect {
		if p, ok := c.Provider(name); ok && len(p.KeyEnv) > 0 && len(vars) < n {
			vars = append(vars, p.KeyEnv[0])
		}
	}
	return vars
}

// keyHint suggests the key variables of the first auto-detect providers.
func (c *Catalog) keyHint() string {
	var vars []string
	for _, name := range c.autoDetect {
		if p, ok := c.Provider(name); ok && len(p.KeyEnv) > 0 {
			vars = append(vars, p.KeyEnv[0])
		}
		if len(vars) == 3 {
			break
		}
	}
	switch len(vars) {
	case 0:
		return "run `aidex providers` to pick one"
	case 1:
		return fmt.Sprintf("set %s or run `aidex providers`", vars[0])
	default:
		return fmt.Sprintf("set %s or %s, or run `aidex providers`",
			strings.Join(vars[:len(vars)-1], ", "), vars[len(vars)-1])
	}
}
