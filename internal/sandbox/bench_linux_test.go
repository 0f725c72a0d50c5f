//go:build linux

package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkTruePlain and BenchmarkTrueConfined measure the sandbox's
// start-up per command: the difference of their ns/op is the overhead
// (target ≤ 5 ms). Run: go test ./internal/sandbox -run '^$' -bench True -benchtime 200x
func BenchmarkTruePlain(b *testing.B) {
	truePath := lookTrue(b)
	for b.Loop() {
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrueConfined(b *testing.B) {
	truePath := lookTrue(b)
	c := requireCaps(b)
	root := b.TempDir()
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: root, Home: root,
		Writable: DefaultWritable(root, func(string) string { return "" })}, c)
	if err != nil {
		b.Fatal(err)
	}
	for _, net := range []bool{false, true} {
		name := "network-off"
		if net {
			name = "network-on"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(truePath)
				cmd.Dir = root
				if err := sb.Confine(cmd, Options{Network: net}); err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}

func lookTrue(b *testing.B) string {
	p, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	return p
}
