package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/wire"
)

func newProvidersCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "providers",
		Short: "List the model providers, grouped by how to start using them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), rt.Catalog.Groups())
			}
			return printProviders(cmd, rt)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the providers as JSON")
	cmd.AddCommand(newProvidersTestCmd(a), newProvidersAddCmd(a))
	return cmd
}

// newProvidersAddCmd is `aidex providers add NAME --url URL [--key-env
// VAR] [--model M] [--type T]`: it checks the server (its model list),
// then appends [providers.NAME] to the global config file.
func newProvidersAddCmd(a *cliApp) *cobra.Command {
	var spec app.ProviderSpec
	cmd := &cobra.Command{
		Use:   "add NAME --url URL [--key-env VAR] [--model M]",
		Short: "Save an OpenAI-compatible (or other) server as [providers.NAME] in the config file",
		Long: "Save a model server as [providers.NAME] in the global config file, keeping the file's\n" +
			"other content and comments. The server's model list (GET URL/models) is checked and shown;\n" +
			"a server that does not answer is saved all the same, with a warning. Without --key-env no\n" +
			"key is sent; with it, the key is read from that variable at each start (unset: no key).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec.Name = args[0]
			if spec.BaseURL == "" {
				return usageErr("providers add: --url is required (e.g. --url http://127.0.0.1:8080/v1)")
			}
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			_, models, listErr, err := rt.CheckProvider(cmd.Context(), spec)
			if err != nil {
				return usageErr("providers add: %v", err)
			}
			if err := rt.AddProvider(spec); err != nil {
				return usageErr("%v", err)
			}
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			fmt.Fprintf(out, "added [providers.%s] to %s\n", spec.Name, rt.Config.Paths.ConfigFile)
			switch {
			case listErr != nil:
				fmt.Fprintf(errw, "warning: could not list the server's models (%v); saved all the same\n", listErr)
			case len(models) == 0:
				fmt.Fprintln(errw, "warning: the server lists no models")
			default:
				fmt.Fprintf(out, "models at %s: %s\n", spec.BaseURL, strings.Join(models, ", "))
				if spec.Model != "" && !slices.Contains(models, spec.Model) {
					fmt.Fprintf(errw, "warning: the server does not list model %q\n", spec.Model)
				}
			}
			if spec.KeyEnv != "" && rt.Getenv(spec.KeyEnv) == "" {
				fmt.Fprintf(errw, "note: %s is not set: no key is sent until it is\n", spec.KeyEnv)
			}
			fmt.Fprintf(out, "use it with `aidex --provider %s`, or make it the default: `aidex config set provider %s`\n", spec.Name, spec.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&spec.BaseURL, "url", "", "the API root, e.g. http://127.0.0.1:8080/v1 (required)")
	cmd.Flags().StringVar(&spec.KeyEnv, "key-env", "", "the environment variable holding the API key (default: no key)")
	cmd.Flags().StringVar(&spec.Model, "model", "", "the model to use (default: the server's first)")
	cmd.Flags().StringVar(&spec.Type, "type", "", wire.TypeHelp())
	return cmd
}

func printProviders(cmd *cobra.Command, rt *catalogView) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	for _, g := range rt.Catalog.Groups() {
		fmt.Fprintf(w, "\n%s\n", strings.ToUpper(g.Group[:1])+g.Group[1:])
		for _, p := range g.Providers {
			key := "no key needed"
			if p.RequiresKey || len(p.KeyEnv) > 0 {
				switch src := p.KeySource(rt.Getenv); {
				case src != "":
					key = "key: " + src
				case p.RequiresKey:
					key = "set " + p.KeyHint()
				}
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", p.Name, p.Type, key, p.Notes)
			if p.SignupURL != "" {
				label := "site"
				if p.RequiresKey {
					label = "get a key"
				}
				fmt.Fprintf(w, "  \t\t\t%s: %s\n", label, p.SignupURL)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), "\nUse one with `aidex --model PROVIDER/MODEL -p ...` or `aidex config set provider NAME`.")
	return nil
}

func newProvidersTestCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "test NAME",
		Short: "Check that a provider answers with your key (models endpoint, else a one-token completion)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			p, ok := rt.Catalog.Provider(args[0])
			if !ok {
				return usageErr("unknown provider %q: run `aidex providers` to list them", args[0])
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			start := time.Now()
			err = catalog.Probe(ctx, p, p.APIKey(rt.Getenv), nil)
			how := "models endpoint"
			if err != nil && !errors.Is(err, catalog.ErrMissingKey) && !errors.Is(err, catalog.ErrUnauthorized) {
				how = "one-token completion"
				err = completionProbe(ctx, rt, p)
			}
			if err != nil {
				return providerErr(p.Name, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: OK (%s, %s)\n", p.Name, how, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
}

// providerErr names the provider in err once: the catalog's and the
// model clients' errors mostly name it already ("groq: HTTP 401: ...",
// `provider "groq" has no base URL`); others ("context deadline
// exceeded") get "name: " in front.
func providerErr(name string, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, name+": ") || strings.Contains(msg, "provider "+name) || strings.Contains(msg, fmt.Sprintf("provider %q", name)) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// completionProbe asks p's default model for one token.
func completionProbe(ctx context.Context, rt *catalogView, p catalog.Provider) error {
	if err := p.Validate(); err != nil {
		return err
	}
	c, err := wire.New(string(p.Type), wire.Settings{Options: llm.Options{Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey(rt.Getenv), KeyEnv: p.KeyHint(), RequestTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second}})
	if err != nil {
		return err
	}
	_, err = c.Generate(ctx, &llm.Request{Model: p.DefaultModel, MaxTokens: 1, Messages: []llm.Message{llm.UserText("Say OK")}}, nil)
	return err
}

func newModelsCmd(a *cliApp) *cobra.Command {
	var provider string
	var refresh, free, asJSON bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List a provider's models with prices and context windows (live, cached 6 h, or built in)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			name := provider
			if name == "" {
				name = rt.Config.Provider
			}
			if name == "" {
				name = rt.Catalog.ChooseDefault(cmd.Context(), rt.Getenv, nil).Provider
			}
			p, ok := rt.Catalog.Provider(name)
			if !ok {
				return usageErr("unknown provider %q: run `aidex providers` to list them", name)
			}
			ml, err := rt.Lister().List(cmd.Context(), p, catalog.ListOptions{Refresh: refresh, FreeOnly: free})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), ml)
			}
			return printModels(cmd, ml)
		},
	}
	f := cmd.Flags()
	f.StringVar(&provider, "provider", "", "provider to list (default: the configured or automatic one)")
	f.BoolVar(&refresh, "refresh", false, "fetch the live list even when the cache is fresh")
	f.BoolVar(&free, "free", false, "only models usable for free")
	f.BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

func printModels(cmd *cobra.Command, ml catalog.ModelList) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%s: %d models (source: %s)\n", ml.Provider, len(ml.Models), ml.Source)
	if ml.Note != "" {
		fmt.Fprintf(out, "note: %s\n", ml.Note)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, m := range ml.Models {
		tools := ""
		if ok, known := m.SupportsTools(); known && !ok {
			tools = "no tools"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", m.ID, catalog.PriceLabel(m), catalog.ContextLabel(m.ContextWindow), tools)
	}
	return w.Flush()
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
