package proc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretEnvNameCredentials(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret bool
	}{
		{"DATABASE_URL", true}, {"TEST_DATABASE_URL", true}, {"database_url", true},
		{"SENTRY_DSN", true}, {"DSN", true}, {"MYSQL_PWD", true}, {"DB_PWD", true},
		{"PGPASSWORD", true}, {"REDIS_PASSWD", true}, {"VAULT_TOKEN", true}, {"APP_SECRET", true},
		{"STRIPE_API_KEY", true}, {"AZURE_STORAGE_CONNECTION_STRING", true},
		{"PWD", false}, {"OLDPWD", false}, {"pwd", false}, {"DSNX_MODE", false},
		{"DATABASE_NAME", false}, {"DATABASE_HOST", false}, {"GOPATH", false}, {"CDPATH", false},
	} {
		require.Equal(t, tc.secret, SecretEnvName(tc.name), tc.name)
	}
}

func TestSecretEnvValue(t *testing.T) {
	for _, tc := range []struct {
		value  string
		secret bool
	}{
		{"postgres://app:hunter2@db.internal:5432/app", true},
		{"https://user:pass@proxy.example:3128", true},
		{"https://ghp_abc@github.com/org/repo.git", true},
		{"mysql://root@localhost/x", true},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----", true},
		{"sk-ant-0123456789abcdef", true},
		{"https://example.com/a@b", false},
		{"https://example.com/?q=a@b", false},
		{"http://127.0.0.1:11434", false},
		{"user@example.com", false},
		{"/home/u/.local/bin:/usr/bin", false},
		{"-----BEGIN CERTIFICATE-----", false},
		{"", false},
	} {
		require.Equal(t, tc.secret, secretEnvValue(tc.value), tc.value)
	}
}

func TestChildEnvironPolicy(t *testing.T) {
	base := []string{
		"PATH=/bin", "PWD=/w", "OLDPWD=/o", "LOCALAI=plain-looking-key", "OTHER=fine",
		"DATABASE_URL=postgres://u:p@db/x", "HTTPS_PROXY=http://u:p@proxy:3128", "FOO_TOKEN=t", "SENTRY_DSN=https://k@o.ingest/1",
	}
	got := ChildEnviron(base, nil, EnvPolicy{Secret: []string{"localai"}, Allow: []string{"FOO_TOKEN", "https_proxy"}})
	require.Equal(t, []string{
		"PATH=/bin", "PWD=/w", "OTHER=fine", "HTTPS_PROXY=http://u:p@proxy:3128", "FOO_TOKEN=t",
		"NO_COLOR=1", "GIT_TERMINAL_PROMPT=0", "PAGER=cat", "GIT_PAGER=cat",
	}, got[:9], "OLDPWD is unset; git's settings are neutralised after these")

	// Allow beats a configured secret name; keep works as before.
	require.Contains(t, ChildEnviron(base, nil, EnvPolicy{Secret: []string{"LOCALAI"}, Allow: []string{"LOCALAI"}}), "LOCALAI=plain-looking-key")
	require.Contains(t, ChildEnviron(base, []string{"database_url"}, EnvPolicy{}), "DATABASE_URL=postgres://u:p@db/x")
	require.NotContains(t, ChildEnviron(base, nil, EnvPolicy{}), "DATABASE_URL=postgres://u:p@db/x")
}
