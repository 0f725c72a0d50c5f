package helper

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoCacheProgReadsThroughWritesPrivate: a get finds what the user's
// cache holds (cmd/go's layout), a put lands in the private cache only,
// and a later get finds it there.
func TestGoCacheProgReadsThroughWritesPrivate(t *testing.T) {
	private, user := t.TempDir(), t.TempDir()
	userAction, userBody := bytes.Repeat([]byte{0xaa}, 32), []byte("compiled by the user")
	userOut := sha256.Sum256(userBody)
	p := outputPath(user, userOut[:])
	if err := writeAtomic(p, userBody); err != nil {
		t.Fatal(err)
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", userAction, userOut[:], len(userBody), 1)
	if err := writeAtomic(entryPath(user, userAction), []byte(entry)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, user)
	newAction, newBody := bytes.Repeat([]byte{0xbb}, 32), []byte("compiled in the sandbox")
	newOut := sha256.Sum256(newBody)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.Encode(cacheRequest{ID: 1, Command: "get", ActionID: userAction})
	enc.Encode(cacheRequest{ID: 2, Command: "get", ActionID: newAction})
	enc.Encode(cacheRequest{ID: 3, Command: "put", ActionID: newAction, OutputID: newOut[:], BodySize: int64(len(newBody))})
	enc.Encode(newBody)
	enc.Encode(cacheRequest{ID: 4, Command: "get", ActionID: newAction})
	enc.Encode(cacheRequest{ID: 5, Command: "put", ActionID: newAction, OutputID: userOut[:], BodySize: int64(len(newBody))})
	enc.Encode(newBody)
	enc.Encode(cacheRequest{ID: 6, Command: "close"})
	var out bytes.Buffer
	if err := ServeGoCache(&in, &out, private, user); err != nil {
		t.Fatal(err)
	}
	res := map[int64]cacheResponse{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r cacheResponse
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		res[r.ID] = r
	}
	if !strings.Contains(strings.Join(res[0].KnownCommands, ","), "put") {
		t.Errorf("first response %+v", res[0])
	}
	if r := res[1]; r.Miss || r.DiskPath != p {
		t.Errorf("get of the user's entry: %+v", r)
	}
	if !res[2].Miss {
		t.Errorf("get of an unknown action: %+v", res[2])
	}
	if r := res[4]; r.Miss || !strings.HasPrefix(r.DiskPath, private) {
		t.Errorf("get after put: %+v", r)
	}
	if res[5].Err == "" {
		t.Error("a put whose body does not match its output ID was accepted")
	}
	if after := snapshot(t, user); after != before {
		t.Errorf("the user's cache changed:\n%s\n%s", before, after)
	}
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, _ error) error {
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %d\n", p, len(data))
		return nil
	})
	return b.String()
}
