package sandbox

import (
	"strings"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// seatbeltProfile writes the macOS sandbox-exec (Seatbelt, SBPL) profile
// for sp: reads anywhere except the masked paths, writes only beneath the
// writable folders except the protected paths, signals only within the
// sandbox, and no network unless sp.NetOff is false. Paths must already
// be resolved (macOS matches real paths: /private/tmp, not /tmp). It is
// plain text generation, so it is tested on every OS.
func seatbeltProfile(sp helper.Spec) string {
	var b strings.Builder
	b.WriteString(`(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow file-read*)
(allow file-write-data file-ioctl
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper")
  (regex #"^/dev/ttys[0-9]+$"))
(allow pseudo-tty)
(allow ipc-posix-shm* ipc-posix-sem)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.CoreServices.coreservicesd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd.agent"))
`)
	if len(sp.Writable) > 0 {
		b.WriteString("(allow file-write*")
		for _, w := range sp.Writable {
			b.WriteString("\n  (subpath " + sbplString(w) + ")")
		}
		b.WriteString(")\n")
	}
	if len(sp.Protected) > 0 {
		b.WriteString("(deny file-write*")
		for _, p := range sp.Protected {
			b.WriteString("\n  (subpath " + sbplString(p) + ")")
		}
		b.WriteString(")\n")
	}
	// Last: in SBPL the last matching rule wins, so masks beat writes.
	if len(sp.MaskDirs)+len(sp.MaskFiles) > 0 {
		b.WriteString("(deny file-read* file-write*")
		for _, d := range sp.MaskDirs {
			b.WriteString("\n  (subpath " + sbplString(d) + ")")
		}
		for _, f := range sp.MaskFiles {
			b.WriteString("\n  (literal " + sbplString(f) + ")")
		}
		b.WriteString(")\n")
	}
	if sp.NetOff {
		// Commands may serve and reach their own servers on loopback only
		// through sockets they bind; outbound connections are denied.
		b.WriteString("(allow network-bind network-inbound (local ip \"localhost:*\"))\n")
	} else {
		b.WriteString("(allow network* system-socket)\n(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n")
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
