package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zelvior/aidex/internal/app/images"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/notestore"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// Memory returns the memory store of the workspace (project scope) and the
// global memory directory under the config directory.
func (c *Controller) Memory() *memstore.Store {
	rt := c.Runtime()
	return memstore.NewStore(rt.Workspace, memstore.GlobalDir(rt.Config.Paths.ConfigDir), nil)
}

// memoryLimit is how many memories /memory lists.
const memoryLimit = 50

func cmdMemory(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	id, text, _ := strings.Cut(rest, " ")
	text = strings.TrimSpace(text)
	st := c.Memory()
	var (
		e   memstore.Entry
		err error
	)
	switch strings.ToLower(verb) {
	case "", "list", "ls":
		return Outcome{}, listMemories(ctx, st, rest, out)
	case "pin", "unpin":
		if id == "" {
			return Outcome{}, fmt.Errorf("name a memory: /memory %s ID (/memory lists them)", verb)
		}
		e, err = st.SetPinned(ctx, id, verb == "pin")
	case "edit":
		if id == "" || text == "" {
			return Outcome{}, errors.New("give the id and the new text: /memory edit ID TEXT")
		}
		e, err = st.Edit(ctx, id, text)
	case "add":
		if rest == "" {
			return Outcome{}, errors.New("give the text: /memory add TEXT")
		}
		e, err = st.Save(ctx, memstore.ScopeProject, memstore.Entry{Content: rest})
	case "delete", "rm":
		if id == "" {
			return Outcome{}, errors.New("name a memory: /memory delete ID (/memory lists them)")
		}
		if err := st.Delete(ctx, id); err != nil {
			return Outcome{}, err
		}
		fmt.Fprintf(out, "deleted %s\n", id)
		return Outcome{}, nil
	default:
		return Outcome{}, fmt.Errorf("unknown /memory %s: use /memory [list [WORDS]], pin ID, unpin ID, edit ID TEXT, add TEXT or delete ID", verb)
	}
	if err != nil {
		return Outcome{}, err
	}
	fmt.Fprintln(out, memstore.FormatEntry(e))
	return Outcome{}, nil
}

func listMemories(ctx context.Context, st *memstore.Store, query string, out io.Writer) error {
	es, err := st.List(ctx, memstore.Query{Text: query, Limit: memoryLimit})
	if err != nil {
		return err
	}
	if len(es) == 0 {
		if query != "" {
			fmt.Fprintf(out, "no memory matches %q\n", query)
		} else {
			fmt.Fprintln(out, "no memories yet: the model saves them with save_memory; /memory add TEXT adds one")
		}
		return nil
	}
	for _, e := range es {
		fmt.Fprintln(out, memstore.FormatEntry(e))
	}
	fmt.Fprintln(out, "(/memory pin ID puts one into every system prompt; unpin, edit ID TEXT, delete ID)")
	return nil
}

func cmdNotes(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	ns, err := notestore.List(c.Runtime().Workspace)
	if err != nil {
		return Outcome{}, err
	}
	if len(ns) == 0 {
		fmt.Fprintln(out, "no notes yet: the model writes them with create_note into .aidex/notes/")
		return Outcome{}, nil
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, n := range ns {
		date := "-"
		if !n.Date.IsZero() {
			date = n.Date.Local().Format("2006-01-02 15:04")
		}
		tags := ""
		if len(n.Tags) > 0 {
			tags = "#" + strings.Join(n.Tags, " #")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", date, n.Title, n.Path, tags)
	}
	return Outcome{}, w.Flush()
}

// imageArgs splits /image's argument into the prompt and the -o (or
// --output) file ("" when not given).
func imageArgs(arg string) (prompt, file string, err error) {
	words := strings.Fields(arg)
	var keep []string
	for i := 0; i < len(words); i++ {
		if w := words[i]; w == "-o" || w == "--output" {
			if i+1 >= len(words) {
				return "", "", errors.New("-o needs a file name: /image PROMPT -o images/logo.png")
			}
			file = words[i+1]
			i++
			continue
		}
		keep = append(keep, words[i])
	}
	prompt = strings.Join(keep, " ")
	if prompt == "" {
		return "", "", errors.New("describe the image: /image PROMPT [-o FILE]")
	}
	return prompt, file, nil
}

func cmdImage(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	prompt, file, err := imageArgs(arg)
	if err != nil {
		return Outcome{}, err
	}
	rt := c.Runtime()
	// Confinement always on for the user's own file actions (allowed_dirs
	// and --add-dir still apply; confine = false is ignored).
	files, err := rt.Files(true)
	if err != nil {
		return Outcome{}, err
	}
	if file == "" {
		file = "image-" + time.Now().Format("20060102-150405")
	} else if _, err := files.Resolve(file); err != nil {
		// Refuse a bad path before spending a generation on it.
		return Outcome{}, fmt.Errorf("-o %s refused: %w", file, err)
	}
	if strings.TrimSpace(rt.Config.ImageProvider) == "" && c.Front()&slash.Terminal != 0 {
		return Outcome{Action: ActAskImageKey, Arg: arg}, nil
	}
	g, err := rt.ImageGenerator()
	if errors.Is(err, images.ErrNeedsCredentials) {
		return Outcome{Action: ActAskImageKey, Arg: arg}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	img, err := g.Generate(ctx, images.Request{Prompt: prompt})
	if err != nil {
		return Outcome{}, err
	}
	s, err := files.SaveImage(ctx, file, img, false)
	if err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "saved %s (%s, %d bytes, %dx%d, %s/%s)\n", s.Rel, img.MIME, len(img.Data), img.Width, img.Height, img.Provider, img.Model)
	if s.Note != "" {
		fmt.Fprintf(out, "note: %s\n", s.Note)
	}
	return Outcome{}, nil
}
