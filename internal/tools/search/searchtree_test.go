package search

// searchTree builds a tree with nested .gitignore files, a .git
// directory, hidden files, binary files and CRLF lines.
func searchTree(f *fixture) {
	f.write(".gitignore", "*.log\nbuild/\n!keep.log\n")
	f.write(".git/config", "needle in git\n")
	f.write(".github/ci.yml", "needle: hidden dir\n")
	f.write("README.md", "Needle upper\nno match\n")
	f.write("main.go", "package main\n\n// needle one\nfunc main() {}\n// needle two\n")
	f.write("app.log", "needle in ignored log\n")
	f.write("keep.log", "needle kept by negation\n")
	f.write("build/out.go", "needle in ignored build\n")
	f.write("src/.gitignore", "gen_*.go\n")
	f.write("src/gen_a.go", "needle generated\n")
	f.write("src/lib.go", "a\nb\nneedle lib\nc\nd\ne\nf\ng\nneedle again\nh\n")
	f.write("src/deep/x/y.go", "x\r\nneedle crlf\r\n")
	f.write("src/data.bin", "needle\x00binary")
	f.write("docs/notes.txt", "needle at end without newline")
}
