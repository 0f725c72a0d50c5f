package textcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAssistantCommands: issue 23 item 10, iptic-memex's %%CMD%% blocks.
func TestAssistantCommands(t *testing.T) {
	o := Options{Commands: true, Canonical: seedCanonical}
	runSeedCases(t, o, []parseCase{
		{name: "the design's example", text: "%%CMD%% command=\"echo\" arguments=\"hello\"\n%%END%%",
			calls: []wantCall{{"run_command", `{"command":"echo hello"}`}}},
		{name: "text around, END left out without content", text: "Listing.\n%%CMD%% command=\"ls\" arguments=\"-la src\"\n\n",
			calls: []wantCall{{"run_command", `{"command":"ls -la src"}`}}, content: "Listing."},
		{name: "content is standard input", text: "%%CMD%% command=\"wc\" arguments=\"-l\"\none\ntwo $HOME\n%%END%%\nAfter.",
			calls: []wantCall{{"run_command", "{\"command\":\"wc -l <<'AIDEX_EOF'\\none\\ntwo $HOME\\nAIDEX_EOF\"}"}}, content: "After."},
		{name: "here-document delimiter not in content", text: "%%CMD%% command=\"cat\"\nAIDEX_EOF\n%%END%%",
			calls: []wantCall{{"run_command", "{\"command\":\"cat <<'AIDEX_EOF_1'\\nAIDEX_EOF\\nAIDEX_EOF_1\"}"}}},
		{name: "content block by reference", text: "%%BLOCK:note%%\nhello\nworld\n%%END%%\nThen:\n%%CMD%% command=\"sort\" block=\"note\"\n%%END%%",
			calls: []wantCall{{"run_command", "{\"command\":\"sort <<'AIDEX_EOF'\\nhello\\nworld\\nAIDEX_EOF\"}"}}, content: "Then:"},
		{name: "a content block may hold command lines", text: "%%BLOCK:script%%\n%%CMD%% command=\"x\"\n%%END%%\n%%CMD%% command=\"cat\" block=\"script\"\n%%END%%",
			calls: []wantCall{{"run_command", "{\"command\":\"cat <<'AIDEX_EOF'\\n%%CMD%% command=\\\"x\\\"\\nAIDEX_EOF\"}"}}},
		{name: "block defined after its use", text: "%%CMD%% command=\"cat\" block='b'\n%%END%%\n%%BLOCK:b%%\nx\n%%END%%",
			calls: []wantCall{{"run_command", "{\"command\":\"cat <<'AIDEX_EOF'\\nx\\nAIDEX_EOF\"}"}}},
		{name: "typed extra attribute, escaped quote", text: "%%CMD%% command=\"echo\" arguments=\"\\\"a b\\\"\" timeout=30\n%%END%%",
			calls: []wantCall{{"run_command", `{"command":"echo \"a b\"","timeout":30}`}}},
		{name: "a tool by name with content", text: "%%WRITE_FILE%% path=\"notes.txt\"\nline 1\nline 2\n%%END%%",
			calls: []wantCall{{"write_file", `{"path":"notes.txt","content":"line 1\nline 2"}`}}},
		{name: "a tool alias, content to the first optional parameter", text: "%%ls%% depth=1\nsrc\n%%END%%",
			calls: []wantCall{{"ls", `{"depth":1,"path":"src"}`}}},
		{name: "several calls in order with other formats", text: "%%CMD%% command=\"a\"\n%%END%%\n<function=list_directory>x</function>\n%%CMD%% command=\"b\"\n%%END%%",
			calls: []wantCall{{"run_command", `{"command":"a"}`}, {"list_directory", `{"path":"x"}`}, {"run_command", `{"command":"b"}`}}},
		{name: "sentinels and unknown tags stay text", text: "All done.\n%%DONE%%\n%%NOPE%% x=1\n%%END%%",
			content: "All done.\n%%DONE%%\n%%NOPE%% x=1\n%%END%%"},
		{name: "not inside fenced code", text: "Example:\n```\n%%CMD%% command=\"rm\" arguments=\"-rf /\"\n%%END%%\n```\nNothing ran.",
			content: "Example:\n```\n%%CMD%% command=\"rm\" arguments=\"-rf /\"\n%%END%%\n```\nNothing ran."},
		{name: "not inside a tilde fence with a longer backtick line", text: "~~~\n```\n%%CMD%% command=\"x\"\n~~~\n%%CMD%% command=\"y\"\n%%END%%",
			calls: []wantCall{{"run_command", `{"command":"y"}`}}, content: "~~~\n```\n%%CMD%% command=\"x\"\n~~~"},
		{name: "not in quoted text", text: "> %%CMD%% command=\"x\"\nHe said \"%%CMD%% command='y'\" once.",
			content: "> %%CMD%% command=\"x\"\nHe said \"%%CMD%% command='y'\" once."},
		{name: "not closed", text: "%%CMD%% command=\"tee\" arguments=\"f\"\npartial input",
			errs: 1, errContains: "not closed with a line %%END%%"},
		{name: "no command", text: "%%CMD%% arguments=\"x\"\n%%END%%", errs: 1, errContains: `needs command="PROGRAM"`},
		{name: "unknown block", text: "%%CMD%% command=\"cat\" block=\"zz\"\n%%END%%", errs: 1, errContains: "names no %%BLOCK:zz%%"},
		{name: "block and content both", text: "%%BLOCK:a%%\nq\n%%END%%\n%%CMD%% command=\"cat\" block=\"a\"\nmore\n%%END%%", errs: 1, errContains: "both content lines"},
		{name: "bad attributes", text: "%%CMD%% command=\"ls\n%%END%%", errs: 1, errContains: "not closed with its quote"},
		{name: "content that fits no parameter", text: "%%GIT_ADD%% paths=\"['a']\"\nx\n%%END%%", errs: 1, errContains: "fit no parameter"},
	})
}

// TestAssistantCommandsOnlyWhenEnabled: without Options.Commands the
// blocks are text, so a model not configured for text tool calls cannot
// start a command by writing one.
func TestAssistantCommandsOnlyWhenEnabled(t *testing.T) {
	text := "%%CMD%% command=\"echo\" arguments=\"hello\"\n%%END%%"
	if !Contains(text) {
		t.Fatal("Contains must see the block")
	}
	got := Parse(text, seedTools())
	if len(got.Calls) != 0 || len(got.Errors) != 0 || got.Content != text {
		t.Fatalf("parsed without Options.Commands: %+v", got)
	}
	got = ParseWith(text, seedTools(), Options{Commands: true})
	if len(got.Calls) != 1 || got.Calls[0].Format != FormatCommand {
		t.Fatalf("not parsed with Options.Commands: %+v", got)
	}
	bad := ParseWith("%%CMD%%\n%%END%%", nil, Options{Commands: true})
	if len(bad.Errors) != 1 || !strings.Contains(bad.Errors[0].Error(), "%%CMD%% command=\"PROGRAM\"") {
		t.Fatalf("error lacks the format hint: %+v", bad.Errors)
	}
}

// FuzzParseCommands checks ParseWith with the command dialect on: no
// panic, valid arguments, errors that quote the text.
func FuzzParseCommands(f *testing.F) {
	for _, s := range []string{
		"%%CMD%% command=\"echo\" arguments=\"hi\"\nin\n%%END%%",
		"%%BLOCK:a%%\nx\n%%END%%\n%%CMD%% command=ls block=a\n%%END%%",
		"```\n%%CMD%% command=x\n%%END%%\n```",
		"%%WRITE_FILE%% path='p'\nc\n%%END%%\n<function=ls>.</function>",
		"%%CMD%% command=\"a\\\"\n",
		"%%%%\n%%END%%\n%%DONE%%",
	} {
		f.Add(s)
	}
	tools := seedTools()
	f.Fuzz(func(t *testing.T, text string) {
		res := ParseWith(text, tools, Options{Commands: true, Canonical: seedCanonical})
		for _, c := range res.Calls {
			if c.Name == "" || !json.Valid(c.Arguments) {
				t.Fatalf("bad call %q %q", c.Name, c.Arguments)
			}
		}
		for _, e := range res.Errors {
			if e.Reason == "" || e.Raw == "" || !strings.Contains(text, e.Raw) {
				t.Fatalf("bad error %+v", e)
			}
		}
	})
}
