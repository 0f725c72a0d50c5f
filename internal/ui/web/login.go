package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// LoginCodeTTL is how long a login code (NewLoginCode) can be exchanged.
const LoginCodeTTL = time.Minute

// loginCodes are the one-time codes `aidex web --open` puts in the URL it
// hands to the browser opener instead of the token: the opener's command
// line is visible to every user of the machine (ps), the token must not
// be. The page exchanges a code for the token cookie once (POST
// /auth/code), within LoginCodeTTL.
type loginCodes struct {
	mu    sync.Mutex
	codes map[string]time.Time // code → expiry
	now   func() time.Time
}

// add stores a new random code valid for LoginCodeTTL and returns it.
// Errors come from the system's random source.
func (l *loginCodes) add() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("web login code: %w", err)
	}
	code := base64.RawURLEncoding.EncodeToString(b)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.codes == nil {
		l.codes = map[string]time.Time{}
	}
	l.codes[code] = l.clock().Add(LoginCodeTTL)
	return code, nil
}

// redeem reports whether code is a live code, and removes it (and every
// expired one) either way: a code works once.
func (l *loginCodes) redeem(code string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now, ok := l.clock(), false
	for c, exp := range l.codes {
		if subtle.ConstantTimeCompare([]byte(c), []byte(code)) == 1 {
			ok = now.Before(exp)
			delete(l.codes, c)
		} else if !now.Before(exp) {
			delete(l.codes, c)
		}
	}
	return ok
}

func (l *loginCodes) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// NewLoginCode returns a one-time code for LoginURL: the page opened with
// it exchanges it for the token cookie once, within LoginCodeTTL. Errors
// come from the system's random source.
func (s *Server) NewLoginCode() (string, error) { return s.logins.add() }

// handleLoginCode exchanges a login code for the token cookie: POST
// /auth/code {"code": "..."} (outside /api: the page has no token yet;
// the guard still checks Host, Origin and the JSON body). 204 with the
// cookie, or 401 when the code is unknown, used or expired.
func (s *Server) handleLoginCode(cookie string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		var req struct {
			Code string `json:"code"`
		}
		if !s.decodeBody(w, r, &req) {
			return
		}
		if req.Code == "" || !s.logins.redeem(req.Code) {
			writeError(w, http.StatusUnauthorized, "this sign-in link was already used or has expired: open the URL `aidex web` printed in the terminal")
			return
		}
		setTokenCookie(w, cookie, s.opts.Token)
		w.WriteHeader(http.StatusNoContent)
	}
}

// setTokenCookie sets the HttpOnly, SameSite=Strict token cookie.
func setTokenCookie(w http.ResponseWriter, name, token string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
}
