package web

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// openAPIPath is docs/openapi.yaml from this package's folder.
var openAPIPath = filepath.Join("..", "..", "..", "docs", "openapi.yaml")

// openAPIOperations reads docs/openapi.yaml: "METHOD /api/v1/PATH" of
// every operation.
func openAPIOperations(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(openAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `yaml:"openapi"`
		Servers []struct{ URL string }               `yaml:"servers"`
		Paths   map[string]map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Servers) == 0 || !strings.HasSuffix(doc.Servers[0].URL, APIPrefix) {
		t.Fatalf("docs/openapi.yaml: openapi %q, servers %v; want 3.1.0 and a server URL ending in %s", doc.OpenAPI, doc.Servers, APIPrefix)
	}
	ops := map[string]bool{}
	for path, methods := range doc.Paths {
		for m := range methods {
			ops[strings.ToUpper(m)+" "+APIPrefix+path] = true
		}
	}
	return ops
}

// TestOpenAPIListsEveryRoute: every route the server registers is an
// operation of docs/openapi.yaml, and every operation there is served.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	e := newEnv(t, nil, "")
	ops := openAPIOperations(t)
	served := map[string]bool{}
	var missing []string
	for _, r := range e.srv.Routes() {
		key := r.Method + " " + r.Path
		served[key] = true
		if !ops[key] {
			missing = append(missing, key)
		}
	}
	var extra []string
	for key := range ops {
		if !served[key] {
			extra = append(extra, key)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("docs/openapi.yaml is out of step with the server's routes:\nnot documented: %v\ndocumented but not served: %v", missing, extra)
	}
	// The routes are what the handler serves: a documented GET answers
	// something other than the catch-all 404.
	st, body, _ := e.do(e.req(http.MethodGet, APIPrefix+"/tools", nil))
	if st != http.StatusOK {
		t.Fatalf("GET %s/tools: %d %s", APIPrefix, st, body)
	}
}

// TestOpenAPILints runs the maintained validator @redocly/cli (installed
// by .ci/run) on docs/openapi.yaml.
func TestOpenAPILints(t *testing.T) {
	bin := sharedtest.NPMBin(t, "redocly")
	cmd := exec.Command(bin, "lint", "--format", "stylish", filepath.Base(openAPIPath))
	cmd.Dir = filepath.Dir(openAPIPath)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint docs/openapi.yaml: %v\n%s", err, out)
	}
}
