package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/ospath"
)

// TestStoreComparesFoldersAsTheOSDoes: an approval counts under every
// spelling of its folder in the store's path style, and only there.
func TestStoreComparesFoldersAsTheOSDoes(t *testing.T) {
	cases := []struct {
		st          ospath.Style
		approved    string
		same, other []string
	}{
		{ospath.Windows, `C:\Code\Proj`, []string{`c:\code\proj`, `C:/CODE/PROJ/`}, []string{`D:\Code\Proj`, `C:\Code\Proj2`}},
		{ospath.Darwin, "/Users/a/Proj", []string{"/users/a/proj/"}, []string{"/Users/a/Proj2"}},
		{ospath.Unix, "/home/a/Proj", []string{"/home/a/x/../Proj"}, []string{"/home/a/proj"}},
	}
	for _, c := range cases {
		t.Run(c.st.String(), func(t *testing.T) {
			st := Store{file: filepath.Join(t.TempDir(), FileName), style: c.st}
			it := NewItem(KindHook, "PreToolUse: ./a.sh", "", "", "a", c.approved)
			if err := st.Approve(c.approved, it); err != nil {
				t.Fatal(err)
			}
			for _, ws := range c.same {
				if a, err := st.Approvals(ws); err != nil || !a.Approved(it) {
					t.Errorf("approval of %s does not count in %s (err %v)", c.approved, ws, err)
				}
			}
			for _, ws := range c.other {
				if a, _ := st.Approvals(ws); a.Approved(it) {
					t.Errorf("approval of %s counts in %s", c.approved, ws)
				}
			}
			if err := st.Forget(c.same[0]); err != nil {
				t.Fatal(err)
			}
			if a, _ := st.Approvals(c.approved); a.Approved(it) {
				t.Errorf("Forget(%s) kept the approval of %s", c.same[0], c.approved)
			}
		})
	}
}

// TestStoreMergesSpellingsInFile: a file that spells one folder twice (as
// an older aidex on Windows wrote it) counts both under the folder.
func TestStoreMergesSpellingsInFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	a := NewItem(KindHook, "a", "", "", "a", `C:\P`)
	b := NewItem(KindHook, "b", "", "", "b", `C:\P`)
	doc := `{"version":1,"folders":{"C:\\P":[{"kind":"` + string(KindHook) + `","name":"a","digest":"` + a.Digest +
		`"}],"c:\\p":[{"kind":"` + string(KindHook) + `","name":"b","digest":"` + b.Digest + `"}]}}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	app, err := Store{file: file, style: ospath.Windows}.Approvals(`c:\P`)
	if err != nil {
		t.Fatal(err)
	}
	if !app.Approved(a) || !app.Approved(b) {
		t.Errorf("approvals under two spellings of one folder not merged: a %v b %v", app.Approved(a), app.Approved(b))
	}
}
