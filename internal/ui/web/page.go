package web

import (
	"crypto/subtle"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// static is the single-page app: index.html, ES modules and the style
// sheet, served as they are (no build step).
//
//go:embed static
var static embed.FS

// page serves the app. Opening "/?token=T" with the right token sets the
// HttpOnly, SameSite=Strict token cookie and redirects to "/" so the token
// leaves the address bar and the history. "/?code=C" (LoginURL) is served
// as the page itself: its script exchanges the code (POST /auth/code).
func (s *Server) page(port string) http.Handler {
	sub, _ := fs.Sub(static, "static")
	cookie := "aidex_token_" + port
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "the page only answers GET")
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.URL.Path == "/" {
			if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) != 1 {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte("aidex web: wrong token. Open the URL `aidex web` printed (its token changes at every launch).\n"))
				return
			}
			setTokenCookie(w, cookie, s.opts.Token)
			w.Header().Set("Cache-Control", "no-store")
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		name = strings.TrimPrefix(name, "static/") // iptic-memex's /static/<file>
		if name == "" {
			name = "index.html"
		}
		data, err := fs.ReadFile(sub, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if strings.HasSuffix(name, ".js") {
			ct = "text/javascript; charset=utf-8"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(data)
	})
}
