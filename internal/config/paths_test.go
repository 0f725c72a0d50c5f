package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolvePaths(t *testing.T) {
	j := filepath.Join
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want Paths
		err  bool
	}{
		{name: "linux defaults", goos: "linux", env: map[string]string{"HOME": "/home/u"}, want: Paths{
			Home: "/home/u", ConfigDir: "/home/u/.config/aidex", ConfigFile: "/home/u/.config/aidex/config.toml",
			LegacyFile: "/home/u/.config/aidex/config.json", DataDir: "/home/u/.local/share/aidex",
			StateDir: "/home/u/.local/state/aidex", CacheDir: "/home/u/.cache/aidex", TrustFile: "/home/u/.local/state/aidex/trusted.json"}},
		{name: "xdg overrides; relative ignored", goos: "linux", env: map[string]string{"HOME": "/home/u",
			"XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d", "XDG_STATE_HOME": "rel/s", "XDG_CACHE_HOME": "/x/k/"}, want: Paths{
			Home: "/home/u", ConfigDir: "/x/c/aidex", ConfigFile: "/x/c/aidex/config.toml", LegacyFile: "/x/c/aidex/config.json",
			DataDir: "/x/d/aidex", StateDir: "/home/u/.local/state/aidex", CacheDir: "/x/k/aidex", TrustFile: "/home/u/.local/state/aidex/trusted.json"}},
		{name: "xdg without home", goos: "linux", env: map[string]string{
			"XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d", "XDG_STATE_HOME": "/x/s", "XDG_CACHE_HOME": "/x/k"}, want: Paths{
			ConfigDir: "/x/c/aidex", ConfigFile: "/x/c/aidex/config.toml", LegacyFile: "/x/c/aidex/config.json",
			DataDir: "/x/d/aidex", StateDir: "/x/s/aidex", CacheDir: "/x/k/aidex", TrustFile: "/x/s/aidex/trusted.json"}},
		{name: "darwin", goos: "darwin", env: map[string]string{"HOME": "/Users/u"}, want: Paths{
			Home: "/Users/u", ConfigDir: "/Users/u/Library/Application Support/aidex",
			ConfigFile: "/Users/u/Library/Application Support/aidex/config.toml", LegacyFile: "/Users/u/.config/aidex/config.json",
			DataDir: "/Users/u/Library/Application Support/aidex", StateDir: "/Users/u/Library/Application Support/aidex",
			CacheDir: "/Users/u/Library/Caches/aidex", TrustFile: "/Users/u/Library/Application Support/aidex/trusted.json"}},
		// Windows paths are written with "/" so that the test runs on every OS.
		{name: "windows", goos: "windows", env: map[string]string{"USERPROFILE": "/c/Users/u", "APPDATA": "/c/Users/u/AppData/Roaming"}, want: Paths{
			Home: "/c/Users/u", ConfigDir: "/c/Users/u/AppData/Roaming/aidex", ConfigFile: "/c/Users/u/AppData/Roaming/aidex/config.toml",
			LegacyFile: "/c/Users/u/.config/aidex/config.json", DataDir: "/c/Users/u/AppData/Local/aidex",
			StateDir: "/c/Users/u/AppData/Local/aidex", CacheDir: "/c/Users/u/AppData/Local/cache/aidex",
			TrustFile: "/c/Users/u/AppData/Local/aidex/trusted.json"}},
		{name: "no home", goos: "linux", env: map[string]string{}, err: true},
		{name: "relative home", goos: "linux", env: map[string]string{"HOME": "home"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolvePaths(func(k string) string { return tt.env[k] }, tt.goos)
			if tt.err {
				require.ErrorContains(t, err, "set HOME")
				return
			}
			require.NoError(t, err)
			want := tt.want
			for _, p := range []*string{&want.Home, &want.ConfigDir, &want.ConfigFile, &want.LegacyFile, &want.DataDir,
				&want.StateDir, &want.CacheDir, &want.TrustFile} {
				if *p != "" {
					*p = filepath.FromSlash(*p)
				}
			}
			require.Equal(t, want, got)
		})
	}
	require.Equal(t, j("w", ".aidex", "config.toml"), ProjectConfigFile("w"))
}

func TestExpandPath(t *testing.T) {
	require.Equal(t, "/home/u/src", expandPath("~/src", "/home/u", "/base"))
	require.Equal(t, "/home/u", expandPath("~", "/home/u", "/base"))
	require.Equal(t, "/base/rel", expandPath("rel", "/home/u", "/base"))
	require.Equal(t, "/abs", expandPath("/abs/", "/home/u", "/base"))
	require.Equal(t, "/base/~user", expandPath("~user", "/home/u", "/base"))
	require.Empty(t, expandPath("", "/home/u", "/base"))
}
