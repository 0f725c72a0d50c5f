package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/sharedtest"
)

func mcpConfig(t *testing.T) string {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	bad := filepath.Join(t.TempDir(), "bad.sh")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho 'no token' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n[mcp_servers.broken]\ncommand = %q\n", bin, bad)
}

// GET /api/mcp lists the servers with their status and tools.
func TestAPIMCP(t *testing.T) {
	e := newEnv(t, nil, mcpConfig(t))
	var res struct {
		Servers []struct {
			Name, Status, Error string
			Tools               []struct{ Name string }
		}
	}
	if code := e.call(http.MethodGet, "/api/mcp", nil, &res); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if len(res.Servers) != 2 || res.Servers[0].Name != "broken" || res.Servers[0].Status != "failed" || !strings.Contains(res.Servers[0].Error, "no token") ||
		res.Servers[1].Name != "everything" || res.Servers[1].Status != "ready" || len(res.Servers[1].Tools) < 5 {
		t.Fatalf("servers: %+v", res.Servers)
	}
}

// The Settings panel shows the MCP servers' status and tools.
func TestBrowserMCPSettings(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil, mcpConfig(t))
	do(t, ctx, "open Settings", chromedp.Navigate(e.ts.URL+"/?token="+testToken+"#settings"))
	waitJS(t, ctx, "the ready server", `(() => { const s = document.querySelector('#mcp-servers [data-name="everything"]'); return s && s.textContent.includes('ready') && s.textContent.includes('mcp__everything__echo'); })()`)
	waitJS(t, ctx, "the failed server", `(() => { const s = document.querySelector('#mcp-servers [data-name="broken"]'); return s && s.textContent.includes('failed') && s.textContent.includes('no token'); })()`)
	checkNoPageErrors(t, ctx)
	screenshot(t, ctx, "settings-mcp")
}
